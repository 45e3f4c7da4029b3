/// How one proto scalar type sits on the wire.
///
/// Singular fields, packed and unpacked repeated fields and the writer all go through these
/// descriptions, so each type's encoding is spelled out exactly once.
struct ScalarEncoding<Value> {
    /// The wire type of a single, unpacked value.
    let wireType: WireType
    /// Reads one value (no tag).
    let read: (inout ProtoReader) throws -> Value
    /// Writes one value (no tag).
    let write: (inout ProtoWriter, Value) -> Void
    /// proto3 leaves a field out when it holds its default, meaning all-zero bits:
    /// like the reference encoders, `-0.0` is written.
    let isDefault: (Value) -> Bool
}

extension ScalarEncoding where Value == Int32 {
    /// Negative values are sign-extended to 64 bits, hence always 10 bytes.
    static var int32: Self {
        Self(wireType: .varint,
             read: { Int32(truncatingIfNeeded: try $0.readVarint()) },
             write: { $0.writeVarint(signExtending: $1) },
             isDefault: { $0 == 0 })
    }

    static var sint32: Self {
        Self(wireType: .varint,
             read: { ZigZag.decode(UInt32(truncatingIfNeeded: try $0.readVarint())) },
             write: { $0.writeVarint(UInt64(ZigZag.encode($1))) },
             isDefault: { $0 == 0 })
    }

    static var sfixed32: Self {
        Self(wireType: .fixed32,
             read: { Int32(bitPattern: try $0.readFixed32()) },
             write: { $0.writeFixed32(UInt32(bitPattern: $1)) },
             isDefault: { $0 == 0 })
    }
}

extension ScalarEncoding where Value == Int64 {
    static var int64: Self {
        Self(wireType: .varint,
             read: { Int64(bitPattern: try $0.readVarint()) },
             write: { $0.writeVarint(UInt64(bitPattern: $1)) },
             isDefault: { $0 == 0 })
    }

    static var sint64: Self {
        Self(wireType: .varint,
             read: { ZigZag.decode(try $0.readVarint()) },
             write: { $0.writeVarint(ZigZag.encode($1)) },
             isDefault: { $0 == 0 })
    }

    static var sfixed64: Self {
        Self(wireType: .fixed64,
             read: { Int64(bitPattern: try $0.readFixed64()) },
             write: { $0.writeFixed64(UInt64(bitPattern: $1)) },
             isDefault: { $0 == 0 })
    }
}

extension ScalarEncoding where Value == UInt32 {
    static var uint32: Self {
        Self(wireType: .varint,
             read: { UInt32(truncatingIfNeeded: try $0.readVarint()) },
             write: { $0.writeVarint(UInt64($1)) },
             isDefault: { $0 == 0 })
    }

    static var fixed32: Self {
        Self(wireType: .fixed32,
             read: { try $0.readFixed32() },
             write: { $0.writeFixed32($1) },
             isDefault: { $0 == 0 })
    }
}

extension ScalarEncoding where Value == UInt64 {
    static var uint64: Self {
        Self(wireType: .varint,
             read: { try $0.readVarint() },
             write: { $0.writeVarint($1) },
             isDefault: { $0 == 0 })
    }

    static var fixed64: Self {
        Self(wireType: .fixed64,
             read: { try $0.readFixed64() },
             write: { $0.writeFixed64($1) },
             isDefault: { $0 == 0 })
    }
}

extension ScalarEncoding where Value == Bool {
    static var bool: Self {
        Self(wireType: .varint,
             read: { try $0.readVarint() != 0 },
             write: { $0.writeVarint($1 ? 1 : 0) },
             isDefault: { !$0 })
    }
}

extension ScalarEncoding where Value == Float {
    static var float: Self {
        Self(wireType: .fixed32,
             read: { Float(bitPattern: try $0.readFixed32()) },
             write: { $0.writeFixed32($1.bitPattern) },
             isDefault: { $0.bitPattern == 0 })
    }
}

extension ScalarEncoding where Value == Double {
    static var double: Self {
        Self(wireType: .fixed64,
             read: { Double(bitPattern: try $0.readFixed64()) },
             write: { $0.writeFixed64($1.bitPattern) },
             isDefault: { $0.bitPattern == 0 })
    }
}

extension ScalarEncoding where Value: ProtoEnum {
    /// Enums travel as `int32`; values this build does not know are kept as they are.
    static var enumeration: Self {
        let int32 = ScalarEncoding<Int32>.int32
        return Self(wireType: .varint,
                    read: { Value(rawValue: try int32.read(&$0)) },
                    write: { int32.write(&$0, $1.rawValue) },
                    isDefault: { $0.rawValue == 0 })
    }
}
