import EntitlementClient
import HTTP2Transport
import RPCCore

#if canImport(Glibc)
import Glibc
#endif

/// Writes `text` to standard error and exits with `status`.
func fail(_ text: String, status: Int32) -> Never {
    var bytes = Array((text + "\n").utf8)
    _ = bytes.withUnsafeMutableBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    exit(status)
}

let options: EntctlOptions
do {
    guard let parsed = try EntctlOptions.parse(Array(CommandLine.arguments.dropFirst())) else {
        print(EntctlOptions.usage, terminator: "")
        exit(0)
    }
    options = parsed
} catch {
    fail("entctl: \(error)\n\n\(EntctlOptions.usage)", status: 2)
}

var configuration = GRPCClientConfiguration(host: options.address.host, port: options.address.port)
if options.tls {
    configuration.tls = .init(trustedCertificatesPath: options.caFile, serverName: options.serverName)
}

let client: EntitlementClient
do {
    client = try EntitlementClient(configuration: configuration, apiKey: options.apiKey, defaultTimeout: options.timeout)
} catch {
    fail("entctl: \(error)", status: 1)
}

do {
    switch options.command {
    case "health":
        guard options.arguments.count <= 1 else { fail("entctl: health takes at most one SERVICE", status: 2) }
        let status = try await client.checkHealth(service: options.arguments.first ?? "")
        print(status)
        exit(status == .serving ? 0 : 1)
    default:
        fail("entctl: unknown command '\(options.command ?? "")'\n\n\(EntctlOptions.usage)", status: 2)
    }
} catch let error as RPCError {
    fail("entctl: \(error.code): \(error.message)", status: 1)
} catch {
    fail("entctl: \(error)", status: 1)
}
