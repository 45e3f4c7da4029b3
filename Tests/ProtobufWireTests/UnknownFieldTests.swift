import ProtobufWire
import Testing

@Suite struct UnknownFieldTests {
    /// Unknown varint, group (with a nested group), fixed32, fixed64 and length-delimited fields
    /// interleaved with known ones, one of them with a non-minimal tag encoding.
    static let unknowns = [
        "c0 3e 05",
        "9b 03 08 01 13 14 9c 03",
        "cd 3e 01 02 03 04",
        "d1 3e 01 02 03 04 05 06 07 08",
        "da be 00 03 61 62 63",
    ].map(hex)

    @Test func unknownFieldsAreKeptAndReEmittedAfterKnownOnes() throws {
        let input = hex("08 07") + Self.unknowns[0] + Self.unknowns[1] + hex("72 02 68 69")
            + Self.unknowns[2] + Self.unknowns[3] + Self.unknowns[4]
        let message = try TestScalars(serializedBytes: input)
        #expect(message.int32 == 7)
        #expect(message.string == "hi")
        #expect(message.unknownFields == Self.unknowns.flatMap { $0 })
        #expect(message.serializedBytes() == hex("08 07 72 02 68 69") + Self.unknowns.flatMap { $0 })
    }

    @Test func nestedMessagesKeepTheirOwnUnknownFields() throws {
        let input = hex("8a 01 06 0a 01 61 c0 3e 01")
        let message = try TestScalars(serializedBytes: input)
        #expect(message.node?.name == "a")
        #expect(message.node?.unknownFields == hex("c0 3e 01"))
        #expect(message.unknownFields.isEmpty)
        #expect(message.serializedBytes() == input)
    }

    @Test func highestFieldNumberIsAccepted() throws {
        let input = hex("f8 ff ff ff 0f 01")
        #expect(try TestScalars(serializedBytes: input).unknownFields == input)
    }

    @Test func emptyKeepsUnknownFields() throws {
        let input = hex("08 01")
        #expect(try ProtoEmpty(serializedBytes: input).serializedBytes() == input)
    }
}
