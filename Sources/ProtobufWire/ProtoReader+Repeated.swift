/// Repeated scalar fields. Parsers must accept both encodings whatever the schema says:
/// packed (one length-delimited run of values, the proto3 default) and unpacked (one tagged
/// value per element, as proto2 writers and some older peers send). Runs may alternate and
/// all append to the same array.
extension ProtoReader {
    public mutating func decodeRepeatedInt32(_ tag: FieldTag, into values: inout [Int32]) throws {
        try decodeRepeated(tag, .int32, into: &values)
    }

    public mutating func decodeRepeatedInt64(_ tag: FieldTag, into values: inout [Int64]) throws {
        try decodeRepeated(tag, .int64, into: &values)
    }

    public mutating func decodeRepeatedUInt32(_ tag: FieldTag, into values: inout [UInt32]) throws {
        try decodeRepeated(tag, .uint32, into: &values)
    }

    public mutating func decodeRepeatedUInt64(_ tag: FieldTag, into values: inout [UInt64]) throws {
        try decodeRepeated(tag, .uint64, into: &values)
    }

    public mutating func decodeRepeatedSInt32(_ tag: FieldTag, into values: inout [Int32]) throws {
        try decodeRepeated(tag, .sint32, into: &values)
    }

    public mutating func decodeRepeatedSInt64(_ tag: FieldTag, into values: inout [Int64]) throws {
        try decodeRepeated(tag, .sint64, into: &values)
    }

    public mutating func decodeRepeatedBool(_ tag: FieldTag, into values: inout [Bool]) throws {
        try decodeRepeated(tag, .bool, into: &values)
    }

    public mutating func decodeRepeatedFixed32(_ tag: FieldTag, into values: inout [UInt32]) throws {
        try decodeRepeated(tag, .fixed32, into: &values)
    }

    public mutating func decodeRepeatedFixed64(_ tag: FieldTag, into values: inout [UInt64]) throws {
        try decodeRepeated(tag, .fixed64, into: &values)
    }

    public mutating func decodeRepeatedSFixed32(_ tag: FieldTag, into values: inout [Int32]) throws {
        try decodeRepeated(tag, .sfixed32, into: &values)
    }

    public mutating func decodeRepeatedSFixed64(_ tag: FieldTag, into values: inout [Int64]) throws {
        try decodeRepeated(tag, .sfixed64, into: &values)
    }

    public mutating func decodeRepeatedFloat(_ tag: FieldTag, into values: inout [Float]) throws {
        try decodeRepeated(tag, .float, into: &values)
    }

    public mutating func decodeRepeatedDouble(_ tag: FieldTag, into values: inout [Double]) throws {
        try decodeRepeated(tag, .double, into: &values)
    }

    public mutating func decodeRepeatedEnum<E: ProtoEnum>(_ tag: FieldTag, into values: inout [E]) throws {
        try decodeRepeated(tag, .enumeration, into: &values)
    }

    private mutating func decodeRepeated<Value>(
        _ tag: FieldTag, _ encoding: ScalarEncoding<Value>, into values: inout [Value]
    ) throws {
        guard tag.wireType == .lengthDelimited else {
            values.append(try decode(tag, encoding))
            return
        }
        var packed = ProtoReader(try readLengthDelimited(), depth: depth)
        while !packed.isAtEnd {
            values.append(try encoding.read(&packed))
        }
    }
}
