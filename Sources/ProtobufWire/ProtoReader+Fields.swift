/// Typed decoding of singular fields. Each helper checks the tag's wire type against the
/// field's declared type first, so a peer with a mismatched schema gets
/// ``ProtoDecodingError/wrongWireType(field:expected:got:)`` instead of garbage.
extension ProtoReader {
    public mutating func decodeInt32(_ tag: FieldTag) throws -> Int32 { try decode(tag, .int32) }
    public mutating func decodeInt64(_ tag: FieldTag) throws -> Int64 { try decode(tag, .int64) }
    public mutating func decodeUInt32(_ tag: FieldTag) throws -> UInt32 { try decode(tag, .uint32) }
    public mutating func decodeUInt64(_ tag: FieldTag) throws -> UInt64 { try decode(tag, .uint64) }
    public mutating func decodeSInt32(_ tag: FieldTag) throws -> Int32 { try decode(tag, .sint32) }
    public mutating func decodeSInt64(_ tag: FieldTag) throws -> Int64 { try decode(tag, .sint64) }
    public mutating func decodeBool(_ tag: FieldTag) throws -> Bool { try decode(tag, .bool) }
    public mutating func decodeFixed32(_ tag: FieldTag) throws -> UInt32 { try decode(tag, .fixed32) }
    public mutating func decodeFixed64(_ tag: FieldTag) throws -> UInt64 { try decode(tag, .fixed64) }
    public mutating func decodeSFixed32(_ tag: FieldTag) throws -> Int32 { try decode(tag, .sfixed32) }
    public mutating func decodeSFixed64(_ tag: FieldTag) throws -> Int64 { try decode(tag, .sfixed64) }
    public mutating func decodeFloat(_ tag: FieldTag) throws -> Float { try decode(tag, .float) }
    public mutating func decodeDouble(_ tag: FieldTag) throws -> Double { try decode(tag, .double) }

    @inlinable
    public mutating func decodeEnum<E: ProtoEnum>(_ tag: FieldTag, as: E.Type = E.self) throws -> E {
        E(rawValue: try decodeInt32(tag))
    }

    /// proto3 `string` fields must be valid UTF-8; anything else is rejected.
    public mutating func decodeString(_ tag: FieldTag) throws -> String {
        try expectWireType(tag, .lengthDelimited)
        let bytes = try readLengthDelimited()
        guard bytes.withUnsafeBufferPointer(UTF8Validation.isValid) else {
            throw ProtoDecodingError.invalidUTF8(field: tag.number)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    public mutating func decodeBytes(_ tag: FieldTag) throws -> [UInt8] {
        try expectWireType(tag, .lengthDelimited)
        return Array(try readLengthDelimited())
    }

    /// Decodes an embedded message one nesting level deeper; fails past ``maxDepth``.
    @inlinable
    public mutating func decodeMessage<M: ProtoMessage>(_ tag: FieldTag, as: M.Type = M.self) throws -> M {
        try expectWireType(tag, .lengthDelimited)
        var reader = try nested(try readLengthDelimited())
        return try M(from: &reader)
    }

    mutating func decode<Value>(_ tag: FieldTag, _ encoding: ScalarEncoding<Value>) throws -> Value {
        try expectWireType(tag, encoding.wireType)
        return try encoding.read(&self)
    }

    @usableFromInline
    func expectWireType(_ tag: FieldTag, _ expected: WireType) throws {
        guard tag.wireType == expected else {
            throw ProtoDecodingError.wrongWireType(field: tag.number, expected: expected, got: tag.wireType)
        }
    }
}
