import Encodings

/// RFC 3986 percent-decoding of one path segment or query value (`+` is a space only in form-encoded queries).
public enum HTTPPercentDecoding {
    /// nil when a `%` is not followed by two hex digits or the result is not valid UTF-8.
    static func decode(_ bytes: some Collection<UInt8>) -> String? {
        guard bytes.contains(UInt8(ascii: "%")) else {
            return String(validating: bytes, as: UTF8.self)
        }
        return Self.bytes(bytes).flatMap { String(validating: $0, as: UTF8.self) }
    }

    /// The bytes `bytes` encode, whatever they are (a query value may carry a binary message); `plusIsSpace` for
    /// form-encoded query values. nil when a `%` is not followed by two hex digits.
    public static func bytes(_ bytes: some Collection<UInt8>, plusIsSpace: Bool = false) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            bytes.formIndex(after: &index)
            guard byte == UInt8(ascii: "%") else {
                output.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                continue
            }
            guard index != bytes.endIndex, let high = Hex.value(bytes[index]) else { return nil }
            bytes.formIndex(after: &index)
            guard index != bytes.endIndex, let low = Hex.value(bytes[index]) else { return nil }
            bytes.formIndex(after: &index)
            output.append(high << 4 | low)
        }
        return output
    }
}
