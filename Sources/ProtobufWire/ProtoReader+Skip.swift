extension ProtoReader {
    /// Skips the value of the field whose tag ``nextTag()`` just returned and gives back the
    /// field's raw bytes, tag included, exactly as they arrived.
    ///
    /// Messages append the result to their `unknownFields`, which is how fields from newer
    /// schema versions survive a decode and re-encode. Groups are walked field by field, must
    /// close with an end-group tag of the same number, and count towards ``maxDepth``.
    public mutating func skipField(_ tag: FieldTag) throws -> ArraySlice<UInt8> {
        let start = fieldStart
        try skipValue(tag, depth: depth)
        return buffer[start..<position]
    }

    private mutating func skipValue(_ tag: FieldTag, depth: Int) throws {
        switch tag.wireType {
        case .varint:
            _ = try readVarint()
        case .fixed64:
            _ = try readFixed64()
        case .fixed32:
            _ = try readFixed32()
        case .lengthDelimited:
            _ = try readLengthDelimited()
        case .startGroup:
            guard depth < Self.maxDepth else { throw ProtoDecodingError.tooDeep }
            while let inner = try nextTag() {
                if inner.wireType == .endGroup {
                    guard inner.number == tag.number else {
                        throw ProtoDecodingError.unexpectedEndGroup(field: inner.number)
                    }
                    return
                }
                try skipValue(inner, depth: depth + 1)
            }
            throw ProtoDecodingError.unterminatedGroup(field: tag.number)
        case .endGroup:
            throw ProtoDecodingError.unexpectedEndGroup(field: tag.number)
        }
    }
}
