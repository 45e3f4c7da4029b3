import ProtobufWire
import Testing

@Suite struct ScalarFieldTests {
    @Test func fixedWidthFieldsAreLittleEndian() throws {
        var message = TestScalars()
        message.fixed32 = 0x0102_0304
        message.fixed64 = 0x0102_0304_0506_0708
        message.sfixed32 = -2
        message.sfixed64 = -2
        message.float = 1.5
        message.double = 1.5
        let bytes = message.serializedBytes()
        #expect(bytes == hex("""
            45 04 03 02 01
            49 08 07 06 05 04 03 02 01
            55 fe ff ff ff
            59 fe ff ff ff ff ff ff ff
            65 00 00 c0 3f
            69 00 00 00 00 00 00 f8 3f
            """))
        #expect(try TestScalars(serializedBytes: bytes) == message)
    }

    @Test func everyFieldRoundTrips() throws {
        var message = TestScalars()
        message.int32 = -7
        message.int64 = .min
        message.uint32 = .max
        message.uint64 = .max
        message.sint32 = -300
        message.sint64 = 1 << 40
        message.bool = true
        message.fixed32 = 9
        message.fixed64 = 10
        message.sfixed32 = .min
        message.sfixed64 = .max
        message.float = -0.25
        message.double = .pi
        message.string = "héllo ✓"
        message.bytes = [0, 0xFF, 0x80]
        message.color = .green
        message.node = TestNode(name: "n", children: [TestNode(name: "c")])
        message.uint64s = [0, 1, .max]
        message.int32s = [-1, 0, 1]
        message.sint64s = [-1, .min]
        message.fixed32s = [1, 2]
        message.doubles = [0.5, -0.0]
        message.bools = [true, false, true]
        message.colors = [.red, TestColor(rawValue: 42)]
        message.strings = ["a", "", "c"]
        message.nodes = [TestNode(), TestNode(name: "x")]
        #expect(try TestScalars(serializedBytes: message.serializedBytes()) == message)
    }

    @Test func defaultsAreNotWritten() {
        var message = TestScalars()
        #expect(message.serializedBytes().isEmpty)
        message.string = ""
        message.bytes = []
        message.color = .unspecified
        message.float = 0
        message.uint64s = []
        #expect(message.serializedBytes().isEmpty)
    }

    @Test func negativeZeroIsNotTheDefault() {
        var message = TestScalars()
        message.float = -0.0
        #expect(message.serializedBytes() == hex("65 00 00 00 80"))
    }

    @Test func presentEmptyMessageIsWritten() throws {
        var message = TestScalars()
        message.node = TestNode()
        message.nodes = [TestNode()]
        message.strings = [""]
        let bytes = message.serializedBytes()
        #expect(bytes == hex("8a 01 00 da 01 00 e2 01 00"))
        let decoded = try TestScalars(serializedBytes: bytes)
        #expect(decoded.node == TestNode())
        #expect(decoded.nodes == [TestNode()])
        #expect(decoded.strings == [""])
    }

    @Test func absentMessageStaysNil() throws {
        #expect(try TestScalars(serializedBytes: []).node == nil)
    }

    @Test func unknownEnumValueIsKept() throws {
        let bytes = hex("80 01 63")
        let message = try TestScalars(serializedBytes: bytes)
        #expect(message.color.rawValue == 99)
        #expect(message.serializedBytes() == bytes)
        let negative = hex("80 01 ff ff ff ff ff ff ff ff ff 01")
        #expect(try TestScalars(serializedBytes: negative).color.rawValue == -1)
    }

    /// Bodies of 128 bytes or more need a longer length prefix than the one byte reserved up front.
    @Test(arguments: [0, 1, 124, 125, 126, 127, 128, 200, 16_383, 16_384, 20_000])
    func nestedLengthPrefixGrowsWithBody(nameLength: Int) throws {
        var message = TestScalars()
        message.node = TestNode(name: String(repeating: "a", count: nameLength), children: [TestNode(name: "b")])
        message.int32 = 1
        message.uint64s = Array(0..<UInt64(nameLength % 300))
        let inner = message.node!.serializedBytes()
        let packed = encoded { writer in message.uint64s.forEach { writer.writeVarint($0) } }
        let expected = encoded {
            $0.writeTag(1, .varint)
            $0.writeVarint(1)
            $0.writeTag(17, .lengthDelimited)
            $0.writeVarint(UInt64(inner.count))
            $0.writeRaw(inner)
            if !packed.isEmpty {
                $0.writeTag(20, .lengthDelimited)
                $0.writeVarint(UInt64(packed.count))
                $0.writeRaw(packed)
            }
        }
        #expect(message.serializedBytes() == expected)
        #expect(try TestScalars(serializedBytes: expected) == message)
    }

    @Test func decodesFromASliceWithNonZeroStart() throws {
        let buffer = hex("ff ff 08 2a 72 02 68 69 ff")
        let message = try TestScalars(serializedBytes: buffer[2..<8])
        #expect(message.int32 == 42)
        #expect(message.string == "hi")
    }

    @Test func lastOccurrenceOfASingularFieldWins() throws {
        #expect(try TestScalars(serializedBytes: hex("08 01 08 02")).int32 == 2)
    }
}
