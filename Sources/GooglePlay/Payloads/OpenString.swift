public import Encodings

/// A string enumeration Google may extend: a known case, or the raw value of one this build does not know (kept,
/// so it is reported by name instead of failing the decode).
public struct OpenString<Known: RawRepresentable & Sendable & Hashable>: JSONReadable, Sendable, Hashable
where Known.RawValue == String {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public init(_ known: Known) { rawValue = known.rawValue }

    public var known: Known? { Known(rawValue: rawValue) }

    public init(json reader: inout JSONReader) throws(JSONReadError) {
        rawValue = try reader.readString()
    }
}
