/// Appends protobuf wire format to a byte array.
///
/// Embedded messages and packed runs are written in place: the writer reserves one byte for
/// the length, encodes the body straight after it and only moves the body when the length
/// turns out to need more than one byte (bodies of 128 bytes or more). Small messages, the
/// hot path, thus cost no intermediate buffer and no size pre-pass.
public struct ProtoWriter {
    public private(set) var bytes: [UInt8]

    public init() {
        bytes = []
    }

    public init(reservingCapacity capacity: Int) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public mutating func writeTag(_ field: Int, _ wireType: WireType) {
        writeVarint(UInt64(field) << 3 | UInt64(wireType.rawValue))
    }

    public mutating func writeVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    public mutating func writeFixed32(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    public mutating func writeFixed64(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// Appends bytes verbatim: how messages re-emit the unknown fields they kept.
    public mutating func writeRaw(_ raw: some Collection<UInt8>) {
        bytes.append(contentsOf: raw)
    }

    /// Writes a length-delimited field whose value `body` appends to this writer.
    @usableFromInline
    mutating func writeLengthDelimited(_ field: Int, _ body: (inout ProtoWriter) -> Void) {
        writeTag(field, .lengthDelimited)
        let lengthIndex = bytes.count
        bytes.append(0)
        body(&self)
        let length = UInt64(bytes.count - lengthIndex - 1)
        let extraLengthBytes = Varint.size(of: length) - 1
        if extraLengthBytes > 0 {
            bytes.insert(contentsOf: repeatElement(0, count: extraLengthBytes), at: lengthIndex + 1)
        }
        storeVarint(length, at: lengthIndex)
    }

    /// Writes a length-delimited field holding `value`, even when it is empty.
    mutating func writeLengthDelimited(_ field: Int, _ value: some Collection<UInt8>) {
        writeTag(field, .lengthDelimited)
        writeVarint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    private mutating func storeVarint(_ value: UInt64, at index: Int) {
        var value = value
        var index = index
        while value >= 0x80 {
            bytes[index] = UInt8(truncatingIfNeeded: value) | 0x80
            value >>= 7
            index += 1
        }
        bytes[index] = UInt8(value)
    }
}
