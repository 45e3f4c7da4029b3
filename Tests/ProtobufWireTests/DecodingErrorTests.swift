import ProtobufWire
import Testing

@Suite struct DecodingErrorTests {
    @Test func lengthPastEndFails() {
        #expect(throws: ProtoDecodingError.lengthPastEnd) { try TestScalars(serializedBytes: hex("72 05 61 62")) }
    }

    /// A 2 GiB (and a 2^64 - 1) length prefix on a tiny buffer fails before any allocation,
    /// in known, unknown and nested-message fields alike.
    @Test(arguments: ["7a", "da 3e", "8a 01"], ["ff ff ff ff 07", "ff ff ff ff ff ff ff ff ff 01"])
    func hugeLengthPrefixFailsWithoutAllocating(tag: String, length: String) {
        #expect(throws: ProtoDecodingError.lengthPastEnd) {
            try TestScalars(serializedBytes: hex(tag + length + "00 01"))
        }
    }

    @Test(arguments: [
        ("0a 00", 1, WireType.varint, WireType.lengthDelimited),
        ("0b 0c", 1, .varint, .startGroup),
        ("70 01", 14, .lengthDelimited, .varint),
        ("8d 01 00 00 00 00", 17, .lengthDelimited, .fixed32),
        ("61 00 00 00 00", 12, .fixed32, .fixed64),
    ])
    func wrongWireTypeForKnownFieldFails(input: String, field: Int, expected: WireType, got: WireType) {
        let error = #expect(throws: ProtoDecodingError.self) { try TestScalars(serializedBytes: hex(input)) }
        #expect(error?.code == .wrongWireType)
        #expect(error?.message == "field \(field): expected wire type \(expected), got \(got)")
    }

    static func nestedNodes(_ depth: Int) -> [UInt8] {
        (0..<depth).reduce(into: [UInt8]()) { body, _ in
            body = encoded {
                $0.writeTag(2, .lengthDelimited)
                $0.writeVarint(UInt64(body.count))
                $0.writeRaw(body)
            }
        }
    }

    static func nestedGroups(_ depth: Int) -> [UInt8] {
        Array(repeating: hex("e3 03"), count: depth).flatMap { $0 }
            + Array(repeating: hex("e4 03"), count: depth).flatMap { $0 }
    }

    @Test func nestingUpToTheLimitDecodes() throws {
        var node = try TestNode(serializedBytes: Self.nestedNodes(ProtoReader.maxDepth))
        var depth = 0
        while let child = node.children.first {
            node = child
            depth += 1
        }
        #expect(depth == ProtoReader.maxDepth)
        #expect(try TestNode(serializedBytes: Self.nestedGroups(ProtoReader.maxDepth)).unknownFields.count == 400)
    }

    @Test(arguments: [ProtoReader.maxDepth + 1, 200, 5_000])
    func depthBombFails(depth: Int) {
        #expect(throws: ProtoDecodingError.tooDeep) { try TestNode(serializedBytes: Self.nestedNodes(depth)) }
        #expect(throws: ProtoDecodingError.tooDeep) { try TestNode(serializedBytes: Self.nestedGroups(depth)) }
    }

    @Test(arguments: ["00 00", "02 00", "80 80 80 80 10 00", "80 80 80 80 80 80 80 80 80 01"])
    func invalidFieldNumberFails(input: String) {
        #expect(throws: ProtoDecodingError.invalidFieldNumber) { try TestScalars(serializedBytes: hex(input)) }
    }

    @Test(arguments: ["0e 00", "0f 00", "c6 3e 00", "c7 3e"])
    func invalidWireTypeFails(input: String) {
        #expect(throws: ProtoDecodingError.invalidWireType(6)) { try TestScalars(serializedBytes: hex(input)) }
    }

    @Test(arguments: ["72 02 c3 28", "72 02 c0 80", "72 03 ed a0 80", "72 01 ff", "da 01 01 ff", "8a 01 03 0a 01 80"])
    func invalidUTF8StringFails(input: String) {
        #expect(throws: ProtoDecodingError.invalidUTF8(field: 14)) { try TestScalars(serializedBytes: hex(input)) }
    }

    @Test(arguments: ["45 01 02 03", "49 01 02 03 04 05 06 07", "65", "cd 3e 01"])
    func truncatedFixedWidthFails(input: String) {
        #expect(throws: ProtoDecodingError.truncated) { try TestScalars(serializedBytes: hex(input)) }
    }

    @Test func unterminatedGroupFails() {
        #expect(throws: ProtoDecodingError.unterminatedGroup(field: 51)) {
            try TestScalars(serializedBytes: hex("9b 03 08 01"))
        }
        #expect(throws: ProtoDecodingError.unterminatedGroup(field: 51)) {
            try TestScalars(serializedBytes: hex("9b 03 13 14"))
        }
    }

    @Test(arguments: ["9b 03 08 01 a4 03", "9c 03", "08 01 a4 03"])
    func endGroupWithoutMatchingStartFails(input: String) {
        #expect(throws: ProtoDecodingError.unexpectedEndGroup(field: 51)) {
            try TestScalars(serializedBytes: hex(input))
        }
    }

    @Test func errorsDescribeThemselves() {
        #expect(ProtoDecodingError.invalidUTF8(field: 3).description
            == "ProtoDecodingError.invalidUTF8: field 3: string is not valid UTF-8")
    }
}
