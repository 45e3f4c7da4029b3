/// Arithmetic on varints and zigzag numbers shared by the reader and the writer.
@usableFromInline
enum Varint {
    /// Bytes needed to write `value` as a varint (1 to 10).
    @inlinable
    static func size(of value: UInt64) -> Int {
        max(1, (64 - value.leadingZeroBitCount + 6) / 7)
    }
}

/// `sint32`/`sint64` map signed numbers to unsigned ones (0, -1, 1, -2 → 0, 1, 2, 3) so that
/// small negative values stay short on the wire.
enum ZigZag {
    static func encode(_ value: Int32) -> UInt32 {
        UInt32(bitPattern: (value << 1) ^ (value >> 31))
    }

    static func encode(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: (value << 1) ^ (value >> 63))
    }

    static func decode(_ value: UInt32) -> Int32 {
        Int32(bitPattern: value >> 1) ^ -Int32(bitPattern: value & 1)
    }

    static func decode(_ value: UInt64) -> Int64 {
        Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
    }
}
