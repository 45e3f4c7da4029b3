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

switch EntitlementdCommand.prepare(arguments: Array(CommandLine.arguments.dropFirst())) {
case .exit(let status, let standardOutput, let standardError):
    EntitlementdCommand.emit(standardOutput, to: STDOUT_FILENO)
    EntitlementdCommand.emit(standardError, to: STDERR_FILENO)
    exit(status)
case .run(let config):
    do {
        // One ID per process: grpc's interop clients tell servers apart by it (`fill_server_id`).
        var host = [CChar](repeating: 0, count: 256)
        let named = gethostname(&host, host.count - 1) == 0
        let hostname =
            named ? String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "localhost"
        let serverID = "interop-server \(hostname) pid \(getpid())"
        let app = try EntitlementServerApp(
            config: config, extraServices: [InteropTestService(), GRPCTestService(serverID: serverID)])
        try app.run()
    } catch {
        EntitlementdCommand.emit("interop-server: cannot start: \(error)\n", to: STDERR_FILENO)
        exit(EntitlementdCommand.configErrorStatus)
    }
    exit(0)
}
