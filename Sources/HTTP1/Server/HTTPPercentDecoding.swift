import Encodings

/// RFC 3986 percent-decoding of one path segment (no `+` to space: that is form encoding, not URI syntax).
enum HTTPPercentDecoding {
    /// nil when a `%` is not followed by two hex digits or the result is not valid UTF-8.
    static func decode(_ bytes: some Collection<UInt8>) -> String? {
        guard bytes.contains(UInt8(ascii: "%")) else {
            return String(validating: bytes, as: UTF8.self)
        }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            bytes.formIndex(after: &index)
            guard byte == UInt8(ascii: "%") else {
                output.append(byte)
                continue
            }
            guard index != bytes.endIndex, let high = Hex.value(bytes[index]) else { return nil }
            bytes.formIndex(after: &index)
            guard index != bytes.endIndex, let low = Hex.value(bytes[index]) else { return nil }
            bytes.formIndex(after: &index)
            output.append(high << 4 | low)
        }
        return String(validating: output, as: UTF8.self)
    }
}
