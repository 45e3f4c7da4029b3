import Encodings
import ProtobufWire

/// An open enum in the documented style.
struct TestColor: ProtoEnum {
    var rawValue: Int32
    init(rawValue: Int32) { self.rawValue = rawValue }

    static let unspecified = Self(rawValue: 0)
    static let red = Self(rawValue: 1)
    static let green = Self(rawValue: 2)
}

/// A recursive message: nesting depth is bounded only by the input.
struct TestNode: ProtoMessage {
    var name = ""
    var children: [TestNode] = []
    var unknownFields: [UInt8] = []

    init() {}

    init(name: String, children: [TestNode] = []) {
        self.name = name
        self.children = children
    }

    init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: name = try reader.decodeString(tag)
            case 2: children.append(try reader.decodeMessage(tag))
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, name)
        writer.writeRepeatedMessages(2, children)
        writer.writeRaw(unknownFields)
    }
}

/// One field of every scalar type, singular and repeated, plus a nested message.
struct TestScalars: ProtoMessage {
    var int32: Int32 = 0
    var int64: Int64 = 0
    var uint32: UInt32 = 0
    var uint64: UInt64 = 0
    var sint32: Int32 = 0
    var sint64: Int64 = 0
    var bool = false
    var fixed32: UInt32 = 0
    var fixed64: UInt64 = 0
    var sfixed32: Int32 = 0
    var sfixed64: Int64 = 0
    var float: Float = 0
    var double: Double = 0
    var string = ""
    var bytes: [UInt8] = []
    var color = TestColor.unspecified
    var node: TestNode?
    var uint64s: [UInt64] = []
    var int32s: [Int32] = []
    var sint64s: [Int64] = []
    var fixed32s: [UInt32] = []
    var doubles: [Double] = []
    var bools: [Bool] = []
    var colors: [TestColor] = []
    var strings: [String] = []
    var nodes: [TestNode] = []
    var unknownFields: [UInt8] = []

    init() {}

    init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: int32 = try reader.decodeInt32(tag)
            case 2: int64 = try reader.decodeInt64(tag)
            case 3: uint32 = try reader.decodeUInt32(tag)
            case 4: uint64 = try reader.decodeUInt64(tag)
            case 5: sint32 = try reader.decodeSInt32(tag)
            case 6: sint64 = try reader.decodeSInt64(tag)
            case 7: bool = try reader.decodeBool(tag)
            case 8: fixed32 = try reader.decodeFixed32(tag)
            case 9: fixed64 = try reader.decodeFixed64(tag)
            case 10: sfixed32 = try reader.decodeSFixed32(tag)
            case 11: sfixed64 = try reader.decodeSFixed64(tag)
            case 12: float = try reader.decodeFloat(tag)
            case 13: double = try reader.decodeDouble(tag)
            case 14: string = try reader.decodeString(tag)
            case 15: bytes = try reader.decodeBytes(tag)
            case 16: color = try reader.decodeEnum(tag)
            case 17: node = try reader.decodeMessage(tag)
            case 20: try reader.decodeRepeatedUInt64(tag, into: &uint64s)
            case 21: try reader.decodeRepeatedInt32(tag, into: &int32s)
            case 22: try reader.decodeRepeatedSInt64(tag, into: &sint64s)
            case 23: try reader.decodeRepeatedFixed32(tag, into: &fixed32s)
            case 24: try reader.decodeRepeatedDouble(tag, into: &doubles)
            case 25: try reader.decodeRepeatedBool(tag, into: &bools)
            case 26: try reader.decodeRepeatedEnum(tag, into: &colors)
            case 27: strings.append(try reader.decodeString(tag))
            case 28: nodes.append(try reader.decodeMessage(tag))
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    func encode(to writer: inout ProtoWriter) {
        writer.writeInt32(1, int32)
        writer.writeInt64(2, int64)
        writer.writeUInt32(3, uint32)
        writer.writeUInt64(4, uint64)
        writer.writeSInt32(5, sint32)
        writer.writeSInt64(6, sint64)
        writer.writeBool(7, bool)
        writer.writeFixed32(8, fixed32)
        writer.writeFixed64(9, fixed64)
        writer.writeSFixed32(10, sfixed32)
        writer.writeSFixed64(11, sfixed64)
        writer.writeFloat(12, float)
        writer.writeDouble(13, double)
        writer.writeString(14, string)
        writer.writeBytes(15, bytes)
        writer.writeEnum(16, color)
        writer.writeMessage(17, node)
        writer.writePackedUInt64(20, uint64s)
        writer.writePackedInt32(21, int32s)
        writer.writePackedSInt64(22, sint64s)
        writer.writePackedFixed32(23, fixed32s)
        writer.writePackedDouble(24, doubles)
        writer.writePackedBool(25, bools)
        writer.writePackedEnum(26, colors)
        writer.writeRepeatedStrings(27, strings)
        writer.writeRepeatedMessages(28, nodes)
        writer.writeRaw(unknownFields)
    }
}

/// Encodes a single field with `write`, for byte-exact expectations.
func encoded(_ write: (inout ProtoWriter) -> Void) -> [UInt8] {
    var writer = ProtoWriter()
    write(&writer)
    return writer.bytes
}

/// Parses a hex string such as "08 96 01" (spaces ignored).
func hex(_ string: String) -> [UInt8] {
    Hex.decode(string.filter { !$0.isWhitespace })!
}
