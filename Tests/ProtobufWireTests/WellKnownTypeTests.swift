import ProtobufWire
import Testing

@Suite struct WellKnownTypeTests {
    @Test func timestampWireFormat() throws {
        let timestamp = ProtoTimestamp(seconds: 1, nanos: 2)
        #expect(timestamp.serializedBytes() == hex("08 01 10 02"))
        #expect(try ProtoTimestamp(serializedBytes: hex("08 01 10 02")) == timestamp)
        #expect(ProtoTimestamp().serializedBytes().isEmpty)
    }

    @Test func timestampBeforeEpochRoundsSecondsDown() {
        let timestamp = ProtoTimestamp(sinceUnixEpoch: .milliseconds(-1500))
        #expect(timestamp == ProtoTimestamp(seconds: -2, nanos: 500_000_000))
        #expect(timestamp.unixMilliseconds == -1500)
        #expect(timestamp.sinceUnixEpoch == .milliseconds(-1500))
    }

    @Test func timestampMilliseconds() {
        let timestamp = ProtoTimestamp(unixMilliseconds: 1_700_000_000_123)
        #expect(timestamp == ProtoTimestamp(seconds: 1_700_000_000, nanos: 123_000_000))
        #expect(timestamp.unixMilliseconds == 1_700_000_000_123)
    }

    @Test func timestampOrdering() {
        #expect(ProtoTimestamp(seconds: 1, nanos: 5) < ProtoTimestamp(seconds: 2, nanos: 0))
        #expect(ProtoTimestamp(seconds: 1, nanos: 5) > ProtoTimestamp(seconds: 1, nanos: 4))
    }

    @Test(arguments: [
        (Int64(0), Int32(0), true),
        (ProtoTimestamp.minSeconds, 0, true),
        (ProtoTimestamp.maxSeconds, 999_999_999, true),
        (ProtoTimestamp.minSeconds - 1, 0, false),
        (ProtoTimestamp.maxSeconds + 1, 0, false),
        (0, -1, false),
        (0, 1_000_000_000, false),
    ])
    func timestampValidity(seconds: Int64, nanos: Int32, valid: Bool) {
        #expect(ProtoTimestamp(seconds: seconds, nanos: nanos).isValid == valid)
    }

    @Test func durationConvertsBothWays() throws {
        let duration = ProtoDuration(.milliseconds(-1500))
        #expect(duration == ProtoDuration(seconds: -1, nanos: -500_000_000))
        #expect(duration.duration == .milliseconds(-1500))
        #expect(ProtoDuration(.seconds(30 * 86_400)).serializedBytes() == hex("08 80 9a 9e 01"))
        #expect(try ProtoDuration(serializedBytes: duration.serializedBytes()) == duration)
    }

    @Test(arguments: [
        (Int64(1), Int32(1), true),
        (-1, -1, true),
        (0, -999_999_999, true),
        (ProtoDuration.maxSeconds, 999_999_999, true),
        (-ProtoDuration.maxSeconds, -999_999_999, true),
        (ProtoDuration.maxSeconds + 1, 0, false),
        (1, -1, false),
        (-1, 1, false),
        (0, 1_000_000_000, false),
    ])
    func durationValidity(seconds: Int64, nanos: Int32, valid: Bool) {
        #expect(ProtoDuration(seconds: seconds, nanos: nanos).isValid == valid)
    }

    /// The conversion a request's duration goes through: exact inside the well-known type's range, nil (never a
    /// trap) for every value outside it, the extremes of both fields included.
    static let durationEdges: [(Int64, Int32, Int64?)] = [
        (0, 0, 0),
        (1, 0, 1000),
        (-1, 0, -1000),
        (0, 999_999, 0),
        (0, 1_000_000, 1),
        (0, -1_000_000, -1),
        (0, 999_999_999, 999),
        (0, -999_999_999, -999),
        (1, 1, 1000),
        (ProtoDuration.maxSeconds, 999_999_999, ProtoDuration.maxSeconds * 1000 + 999),
        (-ProtoDuration.maxSeconds, -999_999_999, -ProtoDuration.maxSeconds * 1000 - 999),
        (ProtoDuration.maxSeconds + 1, 0, nil),
        (-ProtoDuration.maxSeconds - 1, 0, nil),
        (Int64.max / 1000, 0, nil),
        (Int64.max / 1000 + 1, 0, nil),
        (10_000_000_000_000_000, 0, nil),
        (Int64.max, 999_999_999, nil),
        (Int64.min, -999_999_999, nil),
        (Int64.min, 0, nil),
        (0, 1_000_000_000, nil),
        (0, Int32.max, nil),
        (0, Int32.min, nil),
        (1, -1, nil),
        (-1, 1, nil),
    ]

    @Test(arguments: durationEdges)
    func durationMilliseconds(seconds: Int64, nanos: Int32, milliseconds: Int64?) {
        #expect(ProtoDuration(seconds: seconds, nanos: nanos).milliseconds == milliseconds)
    }

    static let timestampEdges: [(Int64, Int32, Int64?)] = [
        (0, 0, 0),
        (0, 999_999, 0),
        (0, 1_000_000, 1),
        (-1, 0, -1000),
        (-1, 999_000_000, -1),
        (1, 999_999_999, 1999),
        (ProtoTimestamp.minSeconds, 0, ProtoTimestamp.minSeconds * 1000),
        (ProtoTimestamp.maxSeconds, 999_999_999, ProtoTimestamp.maxSeconds * 1000 + 999),
        (ProtoTimestamp.minSeconds - 1, 999_999_999, nil),
        (ProtoTimestamp.maxSeconds + 1, 0, nil),
        (Int64.max / 1000, 0, nil),
        (Int64.max / 1000 + 1, 0, nil),
        (Int64.max, 999_999_999, nil),
        (Int64.min, 0, nil),
        (0, -1, nil),
        (0, 1_000_000_000, nil),
        (0, Int32.max, nil),
        (0, Int32.min, nil),
    ]

    @Test(arguments: timestampEdges)
    func timestampMillisecondsAtTheEdges(seconds: Int64, nanos: Int32, milliseconds: Int64?) {
        #expect(ProtoTimestamp(seconds: seconds, nanos: nanos).unixMilliseconds == milliseconds)
    }
}
