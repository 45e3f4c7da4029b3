/// Reads the protobuf wire format from a byte slice without copying it.
///
/// The reader is a cursor over the caller's buffer: length-delimited values come back as
/// slices of that buffer, and every length is checked against the remaining bytes *before*
/// it is used, so a hostile length prefix can neither allocate nor read out of bounds.
/// Nested messages and groups are counted so that a deeply nested input fails with
/// ``ProtoDecodingError/tooDeep`` instead of exhausting the stack.
public struct ProtoReader {
    /// Deepest nesting accepted, the same limit as the reference implementations.
    public static let maxDepth = 100

    let buffer: ArraySlice<UInt8>
    private(set) var position: Int
    /// Where the field last returned by ``nextTag()`` begins, so ``skipField(_:)`` can hand back
    /// the field's bytes exactly as they arrived.
    private(set) var fieldStart: Int
    /// How many messages or groups enclose the bytes this reader walks; 0 at the top level.
    let depth: Int

    public init(_ bytes: ArraySlice<UInt8>) {
        self.init(bytes, depth: 0)
    }

    public init(_ bytes: [UInt8]) {
        self.init(bytes[...])
    }

    init(_ bytes: ArraySlice<UInt8>, depth: Int) {
        buffer = bytes
        position = bytes.startIndex
        fieldStart = bytes.startIndex
        self.depth = depth
    }

    /// True once every byte has been consumed.
    public var isAtEnd: Bool { position == buffer.endIndex }

    /// Reads the next field key, or returns `nil` at the end of the input.
    public mutating func nextTag() throws -> FieldTag? {
        guard !isAtEnd else { return nil }
        fieldStart = position
        let key = try readVarint()
        let number = key >> 3
        guard number >= 1, number <= UInt64(FieldTag.maxFieldNumber) else {
            throw ProtoDecodingError.invalidFieldNumber
        }
        let rawWireType = UInt8(key & 7)
        guard let wireType = WireType(rawValue: rawWireType) else {
            throw ProtoDecodingError.invalidWireType(rawWireType)
        }
        return FieldTag(number: Int(number), wireType: wireType)
    }

    /// Reads a base-128 varint of at most 10 bytes.
    ///
    /// The 10th byte carries only bit 63, so it may be 0 or 1; anything else would overflow.
    public mutating func readVarint() throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while position < buffer.endIndex {
            let byte = buffer[position]
            position += 1
            if shift == 63 {
                guard byte <= 1 else { throw ProtoDecodingError.malformedVarint }
                return result | UInt64(byte) << 63
            }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
        throw ProtoDecodingError.truncated
    }

    public mutating func readFixed32() throws -> UInt32 {
        UInt32(truncatingIfNeeded: try readLittleEndian(byteCount: 4))
    }

    public mutating func readFixed64() throws -> UInt64 {
        try readLittleEndian(byteCount: 8)
    }

    /// Reads a length prefix and returns that many bytes as a slice of the input.
    public mutating func readLengthDelimited() throws -> ArraySlice<UInt8> {
        let length = try readVarint()
        guard length <= UInt64(buffer.endIndex - position) else { throw ProtoDecodingError.lengthPastEnd }
        let start = position
        position += Int(length)
        return buffer[start..<position]
    }

    /// A reader over `bytes` one nesting level below this one, or ``ProtoDecodingError/tooDeep``.
    @usableFromInline
    func nested(_ bytes: ArraySlice<UInt8>) throws -> ProtoReader {
        guard depth < Self.maxDepth else { throw ProtoDecodingError.tooDeep }
        return ProtoReader(bytes, depth: depth + 1)
    }

    private mutating func readLittleEndian(byteCount: Int) throws -> UInt64 {
        guard buffer.endIndex - position >= byteCount else { throw ProtoDecodingError.truncated }
        var value: UInt64 = 0
        for offset in 0..<byteCount {
            value |= UInt64(buffer[position + offset]) << (8 * offset)
        }
        position += byteCount
        return value
    }
}
