// interop-server: entitlementd plus two test-only services for Tests/Interop: `entitlementd.testing.InteropTestService`
// (our own suite's) and `grpc.testing.TestService` (grpc's interop service, for the interop clients grpc ships).
//
// Same command line and configuration as entitlementd (`--config FILE [--listen HOST:PORT] [--log-level LEVEL]`),
// and the same `entitlementd listening on HOST:PORT` line on standard output once bound. Never deploy it: the test
// service echoes metadata and sleeps on request.
import EntitlementServer
import TestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

EntitlementdCommand.main("interop-server") {
    // One ID per process: grpc's interop clients tell servers apart by it (`fill_server_id`).
    var host = [CChar](repeating: 0, count: 256)
    let named = gethostname(&host, host.count - 1) == 0
    let hostname =
        named ? String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "localhost"
    let serverID = "interop-server \(hostname) pid \(getpid())"
    return [InteropTestService(), GRPCTestService(serverID: serverID)]
}
