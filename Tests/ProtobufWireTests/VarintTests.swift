import ProtobufWire
import Testing

@Suite struct VarintTests {
    @Test(arguments: [
        (UInt64(0), "00"),
        (127, "7f"),
        (128, "80 01"),
        (300, "ac 02"),
        (16_383, "ff 7f"),
        (16_384, "80 80 01"),
        (UInt64(UInt32.max), "ff ff ff ff 0f"),
        (1 << 32, "80 80 80 80 10"),
        (UInt64(Int64.max), "ff ff ff ff ff ff ff ff 7f"),
        (UInt64.max, "ff ff ff ff ff ff ff ff ff 01"),
    ])
    func boundaryValuesRoundTrip(value: UInt64, wire: String) throws {
        let bytes = encoded { $0.writeVarint(value) }
        #expect(bytes == hex(wire))
        var reader = ProtoReader(bytes)
        #expect(try reader.readVarint() == value)
        #expect(reader.isAtEnd)
    }

    @Test func negativeInt32IsTenByteSignExtended() throws {
        let minusOne = encoded { $0.writeInt32(1, -1) }
        #expect(minusOne == hex("08 ff ff ff ff ff ff ff ff ff 01"))
        let minimum = encoded { $0.writeInt32(1, .min) }
        #expect(minimum == hex("08 80 80 80 80 f8 ff ff ff ff 01"))
        #expect(try TestScalars(serializedBytes: minusOne).int32 == -1)
        #expect(try TestScalars(serializedBytes: minimum).int32 == .min)
    }

    @Test func int32AcceptsFiveByteTruncatedForm() throws {
        #expect(try TestScalars(serializedBytes: hex("08 ff ff ff ff 0f")).int32 == -1)
    }

    @Test func truncatedVarintFails() {
        #expect(throws: ProtoDecodingError.truncated) { try TestScalars(serializedBytes: hex("08 80")) }
        #expect(throws: ProtoDecodingError.truncated) { try TestScalars(serializedBytes: hex("80")) }
    }

    @Test func elevenByteVarintFails() {
        let bytes = hex("08") + Array(repeating: 0x80, count: 10) + [0x01]
        #expect(throws: ProtoDecodingError.malformedVarint) { try TestScalars(serializedBytes: bytes) }
    }

    @Test func tenthByteAboveOneOverflowsAndFails() {
        #expect(throws: ProtoDecodingError.malformedVarint) {
            try TestScalars(serializedBytes: hex("20 ff ff ff ff ff ff ff ff ff 02"))
        }
    }

    @Test(arguments: [
        (Int32(0), UInt64(0)), (-1, 1), (1, 2), (-2, 3), (.max, 0xFFFF_FFFE), (.min, 0xFFFF_FFFF),
    ])
    func zigZag32(value: Int32, wire: UInt64) throws {
        let bytes = encoded { $0.writeSInt32(5, value) }
        #expect(bytes == (value == 0 ? [] : encoded { $0.writeTag(5, .varint); $0.writeVarint(wire) }))
        #expect(try TestScalars(serializedBytes: bytes).sint32 == value)
    }

    @Test(arguments: [
        (Int64(-1), UInt64(1)), (1, 2), (-2, 3), (.max, .max - 1), (.min, .max),
    ])
    func zigZag64(value: Int64, wire: UInt64) throws {
        let bytes = encoded { $0.writeSInt64(6, value) }
        #expect(bytes == encoded { $0.writeTag(6, .varint); $0.writeVarint(wire) })
        #expect(try TestScalars(serializedBytes: bytes).sint64 == value)
    }
}
