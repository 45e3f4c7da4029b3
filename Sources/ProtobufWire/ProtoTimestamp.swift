/// `google.protobuf.Timestamp`: a point in time as whole seconds since the Unix epoch (UTC,
/// leap seconds smeared) plus non-negative nanoseconds. Kept free of Foundation: conversions
/// go through `Swift.Duration` since the epoch and through Unix milliseconds, the unit store
/// payloads use.
public struct ProtoTimestamp: ProtoMessage, Comparable {
    /// 0001-01-01T00:00:00Z, the earliest time a valid timestamp may hold.
    public static let minSeconds: Int64 = -62_135_596_800
    /// 9999-12-31T23:59:59Z, the latest.
    public static let maxSeconds: Int64 = 253_402_300_799

    public var seconds: Int64
    /// 0 ..< 1_000_000_000, also before 1970 (the second is rounded down).
    public var nanos: Int32
    public var unknownFields: [UInt8] = []

    public init() {
        self.init(seconds: 0, nanos: 0)
    }

    public init(seconds: Int64, nanos: Int32 = 0) {
        self.seconds = seconds
        self.nanos = nanos
    }

    /// The time `sinceUnixEpoch` after 1970-01-01T00:00:00Z, truncated to nanoseconds.
    public init(sinceUnixEpoch duration: Duration) {
        var (seconds, attoseconds) = duration.components
        if attoseconds < 0 {
            seconds -= 1
            attoseconds += 1_000_000_000_000_000_000
        }
        self.init(seconds: seconds, nanos: Int32(attoseconds / 1_000_000_000))
    }

    /// Integer arithmetic only: servers stamp every response with one of these.
    public init(unixMilliseconds: Int64) {
        let (quotient, remainder) = unixMilliseconds.quotientAndRemainder(dividingBy: 1000)
        let seconds = remainder < 0 ? quotient - 1 : quotient
        let milliseconds = remainder < 0 ? remainder + 1000 : remainder
        self.init(seconds: seconds, nanos: Int32(milliseconds) * 1_000_000)
    }

    public var sinceUnixEpoch: Duration {
        .seconds(seconds) + .nanoseconds(nanos)
    }

    /// Milliseconds since the epoch, rounded down; nil unless ``isValid``, whose bounds keep `seconds * 1000` from
    /// overflowing (a timestamp from outside may hold any `Int64`).
    public var unixMilliseconds: Int64? {
        guard isValid else { return nil }
        return seconds * 1000 + Int64(nanos) / 1_000_000
    }

    /// Whether the value is inside the range the well-known type allows; others must be
    /// rejected as invalid arguments rather than stored.
    public var isValid: Bool {
        (Self.minSeconds...Self.maxSeconds).contains(seconds) && (0..<1_000_000_000).contains(nanos)
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.seconds, lhs.nanos) < (rhs.seconds, rhs.nanos)
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
