// entitlementd-bench: the Swift half of Scripts/benchmark.
//
//   entitlementd-bench seed DATABASE TENANT CUSTOMERS
//       Creates CUSTOMERS customers `bench-user-<n>` through the real engine (durability relaxed to NORMAL so seeding
//       takes seconds), and gives `bench-user-0` two lifetime entitlements, `pro` and `premium`.
//   entitlementd-bench push-latency HOST:PORT PUBLIC_KEY SECRET_KEY STREAMS SAMPLES
//       Opens STREAMS StatusStream calls (customers bench-user-0 ..., 100 per connection), then SAMPLES times grants
//       `pro` to a streamed customer and measures from GrantEntitlement returning to the StatusEvent arriving.
import EntitlementClient
import EntitlementDomain
import EntitlementStorage
import EntitlementsProto
import HTTP2Transport
import RPCCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

func fail(_ message: String) -> Never {
    var bytes = Array("entitlementd-bench: \(message)\n".utf8)
    _ = bytes.withUnsafeMutableBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    exit(2)
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "seed" where arguments.count == 4:
    guard let count = Int(arguments[3]), count > 0 else { fail("CUSTOMERS must be a positive integer") }
    try await Seeder.seed(databasePath: arguments[1], tenantID: arguments[2], customers: count)
case "push-latency" where arguments.count == 6:
    guard let address = try? ListenAddress.parse(arguments[1]).get(), let streams = Int(arguments[4]),
        let samples = Int(arguments[5])
    else { fail("usage: push-latency HOST:PORT PUBLIC_KEY SECRET_KEY STREAMS SAMPLES") }
    try await PushLatency.measure(
        address: address, publicKey: arguments[2], secretKey: arguments[3], streams: streams, samples: samples)
default:
    fail("usage: seed DATABASE TENANT CUSTOMERS | push-latency HOST:PORT PUBLIC_KEY SECRET_KEY STREAMS SAMPLES")
}
