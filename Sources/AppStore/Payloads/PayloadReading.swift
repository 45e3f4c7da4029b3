import Encodings

/// How the App Store payloads' fields are read: every field may be missing or `null` (nil).
extension JSONReader {
    mutating func optionalString() throws(JSONReadError) -> String? {
        try readOptional { reader throws(JSONReadError) in try reader.readString() }
    }

    mutating func optionalInt64() throws(JSONReadError) -> Int64? {
        try readOptional { reader throws(JSONReadError) in try reader.readInt64() }
    }

    mutating func optionalInt() throws(JSONReadError) -> Int? {
        try readOptional { reader throws(JSONReadError) in try reader.readInt() }
    }

    mutating func optionalBool() throws(JSONReadError) -> Bool? {
        try readOptional { reader throws(JSONReadError) in try reader.readBool() }
    }

    mutating func optionalStrings() throws(JSONReadError) -> [String]? {
        try readOptional { reader throws(JSONReadError) in try reader.readStringArray() }
    }

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
