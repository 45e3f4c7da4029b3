/// proto3 singular fields with implicit presence: a field holding its default (0, false, "",
/// empty bytes, enum value 0) is not written at all, exactly as the reference encoders do, so
/// an all-default message encodes to zero bytes.
extension ProtoWriter {
    // The varint types the service's messages use on every response are written directly (see ScalarEncoding for
    // their wire forms); the rest go through their ScalarEncoding.

    /// Negative values take 10 bytes (sign-extended to 64 bits), as the spec requires.
    @inlinable
    public mutating func writeInt32(_ field: Int, _ value: Int32) {
        guard value != 0 else { return }
        writeTag(field, .varint)
        writeVarint(signExtending: value)
    }

    /// A proto3 `optional` field (explicit presence): written whenever set, 0 included.
    public mutating func writeOptionalInt32(_ field: Int, _ value: Int32?) {
        guard let value else { return }
        writeTag(field, .varint)
        writeVarint(signExtending: value)
    }

    /// A proto3 `optional` field (explicit presence): written whenever set, 0 included.
    public mutating func writeOptionalInt64(_ field: Int, _ value: Int64?) {
        guard let value else { return }
        writeTag(field, .varint)
        writeVarint(UInt64(bitPattern: value))
    }

    @inlinable
    public mutating func writeInt64(_ field: Int, _ value: Int64) {
        guard value != 0 else { return }
        writeTag(field, .varint)
        writeVarint(UInt64(bitPattern: value))
    }

    public mutating func writeUInt32(_ field: Int, _ value: UInt32) { write(field, value, .uint32) }

    @inlinable
    public mutating func writeUInt64(_ field: Int, _ value: UInt64) {
        guard value != 0 else { return }
        writeTag(field, .varint)
        writeVarint(value)
    }

    public mutating func writeSInt32(_ field: Int, _ value: Int32) { write(field, value, .sint32) }
    public mutating func writeSInt64(_ field: Int, _ value: Int64) { write(field, value, .sint64) }
    @inlinable
    public mutating func writeBool(_ field: Int, _ value: Bool) {
        guard value else { return }
        writeTag(field, .varint)
        writeVarint(1 as UInt64)
    }

    public mutating func writeFixed32(_ field: Int, _ value: UInt32) { write(field, value, .fixed32) }
    public mutating func writeFixed64(_ field: Int, _ value: UInt64) { write(field, value, .fixed64) }
    public mutating func writeSFixed32(_ field: Int, _ value: Int32) { write(field, value, .sfixed32) }
    public mutating func writeSFixed64(_ field: Int, _ value: Int64) { write(field, value, .sfixed64) }
    /// `0.0` is left out; `-0.0` is written (its bits are not zero).
    public mutating func writeFloat(_ field: Int, _ value: Float) { write(field, value, .float) }
    public mutating func writeDouble(_ field: Int, _ value: Double) { write(field, value, .double) }

    @inlinable
    public mutating func writeEnum<E: ProtoEnum>(_ field: Int, _ value: E) { writeInt32(field, value.rawValue) }

    @inlinable
    public mutating func writeString(_ field: Int, _ value: String) {
        guard !value.isEmpty else { return }
        var value = value
        value.withUTF8 { writeLengthDelimited(field, $0) }
    }

    public mutating func writeBytes(_ field: Int, _ value: some Collection<UInt8>) {
        guard !value.isEmpty else { return }
        writeLengthDelimited(field, value)
    }

    /// Message fields have explicit presence: `nil` is left out, while a present message is
    /// written even when empty (a zero-length field), so the receiver sees it as set.
    @inlinable
    public mutating func writeMessage<M: ProtoMessage>(_ field: Int, _ message: M?) {
        guard let message else { return }
        writeLengthDelimited(field) { message.encode(to: &$0) }
    }

    mutating func write<Value>(_ field: Int, _ value: Value, _ encoding: ScalarEncoding<Value>) {
        guard !encoding.isDefault(value) else { return }
        writeTag(field, encoding.wireType)
        encoding.write(&self, value)
    }
}
