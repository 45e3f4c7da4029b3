/// The six wire types of the protobuf encoding; a tag's low three bits.
///
/// Groups (`startGroup`/`endGroup`) are deprecated but still have to be recognised so that
/// unknown fields written by old proto2 peers can be skipped and kept.
public enum WireType: UInt8, Sendable {
    case varint = 0
    case fixed64 = 1
    case lengthDelimited = 2
    case startGroup = 3
    case endGroup = 4
    case fixed32 = 5
}

/// A decoded field key: the field number and how its value is encoded.
public struct FieldTag: Sendable, Hashable {
    /// Largest field number protobuf allows (2^29 - 1).
    public static let maxFieldNumber = (1 << 29) - 1

    public let number: Int
    public let wireType: WireType

    public init(number: Int, wireType: WireType) {
        self.number = number
        self.wireType = wireType
    }
}
