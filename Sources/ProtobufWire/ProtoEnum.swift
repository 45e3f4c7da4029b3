/// A proto3 enum. proto3 enums are open: a value this build does not know (added by a newer
/// peer) must survive decode and re-encode, so an enum is not a closed Swift `enum` but a
/// struct over its raw `Int32`, with one `static let` per declared value:
///
/// ```swift
/// public struct State: ProtoEnum {
///     public var rawValue: Int32
///     public init(rawValue: Int32) { self.rawValue = rawValue }
///
///     public static let unspecified = Self(rawValue: 0)
///     public static let active = Self(rawValue: 1)
/// }
/// ```
///
/// Switches over such a value need a `default:` branch, which is exactly where unknown values
/// have to be handled anyway.
public protocol ProtoEnum: Sendable, Hashable {
    init(rawValue: Int32)
    var rawValue: Int32 { get }
}
