/// `google.protobuf.Duration`: a signed span as seconds plus nanoseconds of the same sign,
/// convertible to and from `Swift.Duration`.
public struct ProtoDuration: ProtoMessage {
    /// About 10,000 years, the bound the well-known type sets.
    public static let maxSeconds: Int64 = 315_576_000_000

    public var seconds: Int64
    /// -999_999_999 ... 999_999_999, zero or of the same sign as `seconds`.
    public var nanos: Int32
    public var unknownFields: [UInt8] = []

    public init() {
        self.init(seconds: 0, nanos: 0)
    }

    public init(seconds: Int64, nanos: Int32 = 0) {
        self.seconds = seconds
        self.nanos = nanos
    }

    /// Truncates to nanoseconds; `Duration.components` already gives both parts the same sign.
    public init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self.init(seconds: seconds, nanos: Int32(attoseconds / 1_000_000_000))
    }

    public var duration: Duration {
        .seconds(seconds) + .nanoseconds(nanos)
    }

    /// Whole milliseconds, truncated toward zero; nil unless ``isValid``. The validity bounds are what keep
    /// `seconds * 1000` from overflowing: a duration from outside is converted through this, never multiplied raw.
    public var milliseconds: Int64? {
        guard isValid else { return nil }
        return seconds * 1000 + Int64(nanos / 1_000_000)
    }

    /// Whether the value is inside the range the well-known type allows, with consistent signs.
    public var isValid: Bool {
        (-Self.maxSeconds...Self.maxSeconds).contains(seconds)
            && (-999_999_999...999_999_999).contains(nanos)
            && (seconds == 0 || nanos == 0 || (seconds < 0) == (nanos < 0))
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: seconds = try reader.decodeInt64(tag)
            case 2: nanos = try reader.decodeInt32(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeInt64(1, seconds)
        writer.writeInt32(2, nanos)
        writer.writeRaw(unknownFields)
    }
}
