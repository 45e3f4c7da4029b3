#if canImport(Glibc)
import Glibc
#endif

/// The bytes of one fuzz input, read front to back as a series of choices. Past the end every read gives zero, so any
/// input, however short, makes a complete request: libFuzzer's mutations of the bytes become mutations of the choices.
/// Zero always picks the plain case (the first of a list, a value as it is, a time near now), so that short inputs
/// make requests that pass validation and reach what lies behind it.
public struct FuzzInput {
    private let bytes: [UInt8]
    private var position = 0

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    public init(_ data: UnsafePointer<UInt8>, _ size: Int) {
        self.init(Array(UnsafeBufferPointer(start: data, count: size)))
    }

    public mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    /// 0 ..< `count`.
    public mutating func choose(_ count: Int) -> Int {
        precondition(count > 0, "a choice needs something to choose from")
        return count <= 256 ? Int(byte()) % count : Int(UInt16(byte()) << 8 | UInt16(byte())) % count
    }

    public mutating func pick<Element>(_ choices: [Element]) -> Element {
        choices[choose(choices.count)]
    }

    public mutating func bool() -> Bool { byte() & 1 == 1 }

    /// True about once in `n` reads (never for a zero byte).
    public mutating func oneIn(_ n: Int) -> Bool { choose(n) == n - 1 }

    /// Up to `limit` bytes, as many as the next byte says.
    public mutating func bytes(upTo limit: Int) -> [UInt8] {
        let count = min(choose(limit + 1), bytes.count - min(position, bytes.count))
        defer { position += count }
        return Array(bytes[position..<(position + count)])
    }

    /// Whatever the input still holds.
    public mutating func rest() -> [UInt8] {
        defer { position = bytes.count }
        return position < bytes.count ? Array(bytes[position...]) : []
    }

    /// Eight bytes as they are.
    public mutating func rawInt64() -> Int64 {
        var value: UInt64 = 0
        for _ in 0..<8 { value = value << 8 | UInt64(byte()) }
        return Int64(bitPattern: value)
    }

    // MARK: Numbers at the edges

    /// An extreme of Int64 (or one of the bounds a field's conversions cross), or a mutation of one.
    public mutating func int64() -> Int64 { mutated(pick(Extremes.int64)) }

    public mutating func int32() -> Int32 { Int32(truncatingIfNeeded: mutated(Int64(pick(Extremes.int32)))) }

    public mutating func uint64() -> UInt64 { UInt64(bitPattern: mutated(Int64(bitPattern: pick(Extremes.uint64)))) }

    /// Protobuf `int32` nanoseconds: the valid bounds and just past them.
    public mutating func nanos() -> Int32 { oneIn(4) ? int32() : pick(Extremes.nanos) }

    /// A `google.protobuf.Timestamp`'s seconds: the well-known type's bounds, just past them, any extreme, or a time
    /// near now (so that the checks behind the range checks are reached too).
    public mutating func timestampSeconds() -> Int64 {
        switch choose(3) {
        case 0: Extremes.nowSeconds &+ Int64(Int8(bitPattern: byte())) &* pick([86_400, 1, 60, 3600, 31_536_000])
        case 1: pick(Extremes.timestampSeconds)
        default: int64()
        }
    }

    /// A `google.protobuf.Duration`'s seconds, likewise.
    public mutating func durationSeconds() -> Int64 {
        switch choose(3) {
        case 0: Int64(Int8(bitPattern: byte())) &* pick([86_400, 1, 60, 3600])
        case 1: pick(Extremes.durationSeconds)
        default: int64()
        }
    }

    /// Milliseconds since 1970 as stores write them: near now, or any extreme.
    public mutating func unixMilliseconds() -> Int64 {
        oneIn(2) ? int64() : Extremes.nowSeconds &* 1000 &+ Int64(Int8(bitPattern: byte())) &* pick([86_400_000, 1000, 3_600_000])
    }

    /// `value` as it is, or moved a little, a bit flipped, negated, or replaced by raw bytes.
    private mutating func mutated(_ value: Int64) -> Int64 {
        switch choose(8) {
        case 4: value &+ Int64(Int8(bitPattern: byte()))
        case 5: value ^ (1 << Int64(byte() % 64))
        case 6: 0 &- value
        case 7: rawInt64()
        default: value
        }
    }

    // MARK: Text

    /// One of `vocabulary` (the names the fixture knows, so lookups can succeed), or bytes of the input, a number at
    /// an edge, a long run, or nothing.
    public mutating func string(_ vocabulary: [String]) -> String {
        switch choose(10) {
        case 6: String(decoding: bytes(upTo: 80), as: UTF8.self)
        case 7: String(int64())
        case 8: String(repeating: pick(["a", "9", "é", "\u{0}", "/"]), count: pick(Extremes.lengths))
        case 9: ""
        default: vocabulary.isEmpty ? "" : pick(vocabulary)
        }
    }
}

/// The values range checks and conversions turn on.
public enum Extremes {
    /// The Unix time the fixture's data is made around, fixed per run.
    public static let nowSeconds: Int64 = {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec)
    }()

    public static let int64: [Int64] = [
        0, 1, -1, 2, Int64.max, Int64.min, Int64.max - 1, Int64.min + 1,
        // Just past what a multiplication to milliseconds, microseconds, nanoseconds, or by a day or an hour holds.
        Int64.max / 1000 + 1, -(Int64.max / 1000 + 1), Int64.max / 1_000_000 + 1, -(Int64.max / 1_000_000 + 1),
        Int64.max / 1_000_000_000 + 1, Int64.max / 86_400_000 + 1, Int64.max / 86_400 + 1, Int64.max / 3_600_000 + 1,
        Int64.max / 60_000 + 1, Int64.max / 3600 + 1,
        Int64(Int32.max), Int64(Int32.max) + 1, Int64(Int32.min), Int64(Int32.min) - 1, Int64(UInt32.max),
        Int64(UInt32.max) + 1, 1 << 53, (1 << 53) + 1, 10_000_000_000_000, 253_402_300_799_999, 253_402_300_800_000,
    ] + timestampSeconds + durationSeconds

    /// `google.protobuf.Timestamp`'s bounds (0001-01-01 and 9999-12-31T23:59:59) and one past each.
    public static let timestampSeconds: [Int64] = [
        253_402_300_799, 253_402_300_800, -62_135_596_800, -62_135_596_801, 0, -1, nowSeconds, nowSeconds + 86_400,
    ]

    /// `google.protobuf.Duration`'s bounds (about 10,000 years) and one past each.
    public static let durationSeconds: [Int64] = [315_576_000_000, 315_576_000_001, -315_576_000_000, -315_576_000_001]

    public static let int32: [Int32] = [
        0, 1, -1, 2, Int32.max, Int32.min, Int32.max - 1, Int32.min + 1, Int32.max / 1000 + 1, Int32.max / 86_400 + 1,
        Int32.max / 1_000_000 + 1, 10, 11, 50, 60, 61, 90, 91, 100, 101, 500, 501, 1000, 1001, 100_000, 100_001,
        999_999_999, 1_000_000_000, -999_999_999, -1_000_000_000,
    ]

    public static let nanos: [Int32] = [0, 1, -1, 999_999_999, 1_000_000_000, -999_999_999, -1_000_000_000, 500_000_000]

    public static let uint64: [UInt64] = [
        0, 1, 2, UInt64.max, UInt64.max - 1, UInt64(Int64.max), UInt64(Int64.max) + 1, UInt64(UInt32.max),
        UInt64(UInt32.max) + 1, 999, 1000, 1001,
    ]

    /// Lengths at the limits fields have.
    public static let lengths = [1, 32, 33, 64, 65, 128, 129, 255, 256, 257, 512, 513, 1024, 2049, 65_537]
}
