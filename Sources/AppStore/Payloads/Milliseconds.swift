/// A date in milliseconds since 1970-01-01 UTC, as Apple writes them.
///
/// Decodes an integer, or a fractional number (Xcode's StoreKit testing writes `1697679936049.7297`) truncated toward
/// zero to whole milliseconds, the way Apple's Python library converts them; `null` or a missing key is nil.
@propertyWrapper
public struct Milliseconds: Sendable, Hashable, Decodable {
    public var wrappedValue: Int64?

    public init(wrappedValue: Int64?) {
        self.wrappedValue = wrappedValue
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            wrappedValue = nil
        } else if let whole = try? container.decode(Int64.self) {
            wrappedValue = whole
        } else {
            let number = try container.decode(Double.self)
            guard let truncated = Int64(exactly: number.rounded(.towardZero)) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "\(number) is not a date in milliseconds since 1970")
            }
            wrappedValue = truncated
        }
    }
}

extension KeyedDecodingContainer {
    /// A missing key is a nil date, not an error (used by the synthesized `Decodable` of the payload models).
    func decode(_ type: Milliseconds.Type, forKey key: Key) throws -> Milliseconds {
        try decodeIfPresent(type, forKey: key) ?? Milliseconds(wrappedValue: nil)
    }
}
