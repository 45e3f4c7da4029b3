import ProtobufWire
import Testing

@Suite struct RepeatedFieldTests {
    @Test func scalarsAreWrittenPacked() {
        var message = TestScalars()
        message.uint64s = [1, 2, 300]
        message.sint64s = [-1, 1]
        #expect(message.serializedBytes() == hex("a2 01 04 01 02 ac 02  b2 01 02 01 02"))
    }

    @Test func packedAndUnpackedRunsBothDecodeAndAppend() throws {
        let message = try TestScalars(serializedBytes: hex("""
            a0 01 01
            a2 01 03 02 ac 02
            a0 01 05
            bd 01 01 00 00 00
            ba 01 08 02 00 00 00 03 00 00 00
            c8 01 01
            ca 01 02 00 01
            d0 01 63
            d2 01 02 01 02
            b0 01 03
            b2 01 00
            """))
        #expect(message.uint64s == [1, 2, 300, 5])
        #expect(message.fixed32s == [1, 2, 3])
        #expect(message.bools == [true, false, true])
        #expect(message.colors == [TestColor(rawValue: 99), .red, .green])
        #expect(message.sint64s == [-2])
    }

    @Test func unpackedElementWithWrongWireTypeFails() {
        #expect(throws: ProtoDecodingError.wrongWireType(field: 23, expected: .fixed32, got: .varint)) {
            try TestScalars(serializedBytes: hex("b8 01 01"))
        }
    }

    @Test func packedRunEndingInsideAnElementFails() {
        #expect(throws: ProtoDecodingError.truncated) {
            try TestScalars(serializedBytes: hex("ba 01 03 01 00 00"))
        }
        #expect(throws: ProtoDecodingError.truncated) {
            try TestScalars(serializedBytes: hex("a2 01 02 01 80"))
        }
    }

    @Test func repeatedMessagesAndStringsKeepOrder() throws {
        var message = TestScalars()
        message.strings = ["b", "a", "b"]
        message.nodes = [TestNode(name: "2"), TestNode(name: "1")]
        let decoded = try TestScalars(serializedBytes: message.serializedBytes())
        #expect(decoded.strings == ["b", "a", "b"])
        #expect(decoded.nodes.map(\.name) == ["2", "1"])
    }
}
