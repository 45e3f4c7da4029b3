import ProtobufWire
import Testing

/// `decodeString` validates UTF-8 itself; it must agree with the standard library's validator.
@Suite struct UTF8ValidationTests {
    static func decodes(_ content: [UInt8]) -> Bool {
        (try? TestScalars(serializedBytes: [0x72, UInt8(content.count)] + content)) != nil
    }

    static let edges: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF,
                                 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF3, 0xF4, 0xF5, 0xFF]

    @Test func agreesWithTheStandardLibraryOnEveryTwoByteInput() {
        for first in UInt8.min...UInt8.max {
            for second in UInt8.min...UInt8.max {
                let content = [first, second]
                let expected = String(validating: content, as: UTF8.self) != nil
                if Self.decodes(content) != expected {
                    Issue.record("\(content) decodes: \(!expected)")
                }
            }
        }
    }

    @Test func agreesWithTheStandardLibraryOnLongerSequences() {
        for lead in UInt8(0xC0)...UInt8.max {
            for second in Self.edges {
                for third in Self.edges {
                    for fourth in [nil, 0x80, 0xBF, 0x41] as [UInt8?] {
                        let content = [lead, second, third] + (fourth.map { [$0] } ?? [])
                        let expected = String(validating: content, as: UTF8.self) != nil
                        if Self.decodes(content) != expected {
                            Issue.record("\(content) decodes: \(!expected)")
                        }
                    }
                }
            }
        }
    }

    @Test func acceptsEveryPlane() throws {
        let text = "a é € 𝄞 \u{10FFFF} \u{FFFD}"
        var message = TestScalars()
        message.string = text
        #expect(try TestScalars(serializedBytes: message.serializedBytes()).string == text)
    }
}
