@testable import EntitlementsKit
import Testing

/// The SDK's `grpc-timeout`: at most 8 digits in the finest unit that fits, from any deadline a caller gives.
@Suite struct GRPCWebTimeoutTests {
    @Test(arguments: [
        (Duration.milliseconds(1), "1m"), (.zero, "1m"), (.nanoseconds(1), "1m"), (.seconds(-1), "1m"),
        (.milliseconds(1500), "1500m"), (.seconds(99_999) + .milliseconds(999), "99999999m"), (.seconds(100_000), "100000S"),
        (.seconds(99_999_999), "99999999S"), (.seconds(100_000_000), "27777H"),
        (.seconds(Int64.max), "99999999H"), (.seconds(Int64.min), "1m"), (.seconds(Int64.max / 1000 + 1), "99999999H"),
    ])
    func everyDeadlineGivesEightDigitsAtMost(deadline: Duration, header: String) {
        #expect(GRPCWebTransport.grpcTimeout(deadline) == header)
    }
}
