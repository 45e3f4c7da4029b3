import Encodings
import Foundation
import Testing

@Suite struct JSONStringEscapeTests {
    private func escaped(_ byte: UInt8) -> String {
        var bytes: [UInt8] = []
        JSONStringEscape.write(byte) { bytes.append($0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func namedEscapesControlCharactersAndDEL() {
        #expect(escaped(UInt8(ascii: "\"")) == #"\""#)
        #expect(escaped(UInt8(ascii: "\\")) == #"\\"#)
        #expect(escaped(UInt8(ascii: "\n")) == #"\n"#)
        #expect(escaped(UInt8(ascii: "\r")) == #"\r"#)
        #expect(escaped(UInt8(ascii: "\t")) == #"\t"#)
        #expect(escaped(0x00) == #"\u0000"#)
        #expect(escaped(0x1B) == #"\u001b"#)
        #expect(escaped(0x1F) == #"\u001f"#)
        #expect(escaped(0x7F) == #"\u007f"#)
        #expect(escaped(UInt8(ascii: "/")) == "/")
        // UTF-8 passes through byte by byte.
        for byte in "é😀".utf8 {
            var bytes: [UInt8] = []
            JSONStringEscape.write(byte) { bytes.append($0) }
            #expect(bytes == [byte])
        }
    }

    /// Every byte, escaped and wrapped in quotes, is a JSON string Foundation's parser reads back as that byte.
    @Test func everyByteBelowDELReadsBackAsItself() throws {
        for byte in UInt8(0)...0x7F {
            var bytes: [UInt8] = Array("[\"".utf8)
            JSONStringEscape.write(byte) { bytes.append($0) }
            bytes += Array("\"]".utf8)
            #expect(bytes.count - 4 <= JSONStringEscape.maximumExpansion)
            let read = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String]
            #expect(read == [String(UnicodeScalar(byte))], "byte \(byte)")
        }
    }
}
