import Encodings

/// The App Store payloads' own field forms; like every field, missing or `null` is nil.
extension JSONReader {
    /// A date in milliseconds since 1970-01-01 UTC, as Apple writes them: an integer, or a fractional number (Xcode's
    /// StoreKit testing writes `1697679936049.7297`) truncated toward zero, the way Apple's Python library converts
    /// them.
    mutating func optionalMilliseconds() throws(JSONReadError) -> Int64? {
        try readOptional { reader throws(JSONReadError) in try reader.readInt64(truncatingFraction: true) }
    }

    mutating func optionalEnum<Known>() throws(JSONReadError) -> OpenEnum<Known>? where Known.RawValue == String {
        try optionalString().map(OpenEnum.init(rawValue:))
    }

    mutating func optionalEnum<Known>() throws(JSONReadError) -> OpenEnum<Known>? where Known.RawValue == Int {
        try optionalInt().map(OpenEnum.init(rawValue:))
    }
}
