/// Appends protobuf wire format to a byte array.
///
/// Embedded messages and packed runs are written in place: the writer reserves one byte for
/// the length, encodes the body straight after it and only moves the body when the length
/// turns out to need more than one byte (bodies of 128 bytes or more). Small messages, the
/// hot path, thus cost no intermediate buffer and no size pre-pass.
///
/// The per-field paths are `@inlinable` so that each message's `encode(to:)` compiles them in place: encoding runs on
/// every response.
public struct ProtoWriter {
    /// Written only by the writer's own methods.
    @usableFromInline var storage: [UInt8]

    public var bytes: [UInt8] { storage }

    public init() {
        storage = []
    }

    public init(reservingCapacity capacity: Int) {
        storage = []
        storage.reserveCapacity(capacity)
    }

    @inlinable
    public mutating func writeTag(_ field: Int, _ wireType: WireType) {
        writeVarint(UInt64(field) << 3 | UInt64(wireType.rawValue))
    }

    @inlinable
    public mutating func writeVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            storage.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        storage.append(UInt8(value))
    }

    /// `int32` and `enum` values: negative ones are sign-extended to 64 bits, hence 10 bytes, as the spec requires.
    @inlinable
    public mutating func writeVarint(signExtending value: Int32) {
        writeVarint(UInt64(bitPattern: Int64(value)))
    }

    public mutating func writeFixed32(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { storage.append(contentsOf: $0) }
    }

    public mutating func writeFixed64(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { storage.append(contentsOf: $0) }
    }

    /// Appends bytes verbatim: how messages re-emit the unknown fields they kept.
    @inlinable
    public mutating func writeRaw(_ raw: some Collection<UInt8>) {
        guard !raw.isEmpty else { return }
        storage.append(contentsOf: raw)
    }

    /// Writes a length-delimited field whose value `body` appends to this writer.
    @inlinable
    public mutating func writeLengthDelimited(_ field: Int, _ body: (inout ProtoWriter) -> Void) {
        writeTag(field, .lengthDelimited)
        let lengthIndex = storage.count
        storage.append(0)
        body(&self)
        let length = UInt64(storage.count - lengthIndex - 1)
        let extraLengthBytes = Varint.size(of: length) - 1
        if extraLengthBytes > 0 {
            storage.insert(contentsOf: repeatElement(0, count: extraLengthBytes), at: lengthIndex + 1)
        }
        storeVarint(length, at: lengthIndex)
    }

    /// Writes a length-delimited field holding `value`, even when it is empty.
    @inlinable
    mutating func writeLengthDelimited(_ field: Int, _ value: some Collection<UInt8>) {
        writeTag(field, .lengthDelimited)
        writeVarint(UInt64(value.count))
        storage.append(contentsOf: value)
    }

    @inlinable
    mutating func storeVarint(_ value: UInt64, at index: Int) {
        var value = value
        var index = index
        while value >= 0x80 {
            storage[index] = UInt8(truncatingIfNeeded: value) | 0x80
            value >>= 7
            index += 1
        }
        storage[index] = UInt8(value)
    }
}
