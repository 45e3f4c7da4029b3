/// A value from a set Apple may extend: the raw value as received, and the known case when this library knows it.
///
/// Unknown values decode without error (`known == nil`) so a new App Store value never makes signed data unreadable.
public struct OpenEnum<Known: RawRepresentable & Sendable & Hashable>: Sendable, Hashable, CustomStringConvertible
where Known.RawValue: Sendable & Hashable {
    public var rawValue: Known.RawValue

    public init(rawValue: Known.RawValue) {
        self.rawValue = rawValue
    }

    public init(_ known: Known) {
        rawValue = known.rawValue
    }

    /// The known case, or nil for a value this library does not know.
    public var known: Known? { Known(rawValue: rawValue) }

    public var description: String { "\(rawValue)" }

    public static func == (lhs: Self, rhs: Known) -> Bool { lhs.rawValue == rhs.rawValue }
}
