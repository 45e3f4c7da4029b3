import EntitlementsKit
import EntitlementsKitGRPC
import Foundation
import HTTP2Transport

// entitlements-kit-sample: the README's Swift SDK guide as a program that runs on Linux. It sets the SDK up as an
// app would, prints each status update as a JSON line, and takes commands on stdin (see SampleCommands).
//
//   entitlements-kit-sample --server http://127.0.0.1:50051 --key pk_... [--transport grpc-web|grpc]
//                           [--cache DIR] [--log-level debug|info|warning|error]
//                           [--status-keys JWKS_FILE --tenant TENANT_ID] [--user-token-command COMMAND]
//
// --status-keys pins the tenant's status keys (statuses signed for --tenant only); --user-token-command is run (by /bin/sh) for each user token the SDK
// needs, standing in for the app's backend, and prints the token.

let usage = """
    usage: entitlements-kit-sample --server URL --key PUBLIC_KEY [--transport grpc-web|grpc] [--ca PEM] [--cache DIR] \
    [--log-level LEVEL] [--status-keys JWKS_FILE --tenant TENANT_ID] [--user-token-command COMMAND]
    """

var options: [String: String] = [:]
var arguments = CommandLine.arguments.dropFirst()
while let name = arguments.popFirst() {
    guard name.hasPrefix("--"), let value = arguments.popFirst() else {
        FileHandle.standardError.write(Data((usage + "\n").utf8))
        exit(2)
    }
    options[String(name.dropFirst(2))] = value
}
guard let server = options["server"].flatMap(URL.init(string:)), let key = options["key"],
    let host = server.host, let port = server.port
else {
    FileHandle.standardError.write(Data((usage + "\n").utf8))
    exit(2)
}

let levels: [String: EntitlementsLog.Level] = ["debug": .debug, "info": .info, "warning": .warning, "error": .error]
let log = EntitlementsLog(minimumLevel: levels[options["log-level"] ?? "info"] ?? .info) { level, message in
    FileHandle.standardError.write(Data("[entitlements] \(level): \(message)\n".utf8))
}
let cache: any StatusCache =
    options["cache"].map { FileStatusCache(directory: URL(fileURLWithPath: $0)) } ?? MemoryStatusCache()

let statusKeys: StatusKeys?
do {
    statusKeys = try options["status-keys"].map {
        try StatusKeys(tenant: options["tenant"] ?? "", jwks: Data(contentsOf: URL(fileURLWithPath: $0)))
    }
} catch {
    FileHandle.standardError.write(Data("--status-keys: \(error)\n".utf8))
    exit(2)
}
let userTokens = options["user-token-command"].map { command in
    UserTokenProvider { appUserID in try await SampleBackend.token(running: command, for: appUserID) }
}

let commands: SampleCommands
switch options["transport"] ?? "grpc-web" {
case "grpc-web":
    let app = AppModel(
        serverURL: server, publicKey: key, cache: cache, log: log, statusKeys: statusKeys, userTokens: userTokens)
    commands = SampleCommands(entitlements: app.entitlements, model: app.model)
case "grpc":
    let tls = server.scheme == "https" ? GRPCClientConfiguration.TLS(trustedCertificatesPath: options["ca"]) : nil
    let transport = try GRPCTransport(
        configuration: GRPCClientConfiguration(host: host, port: port, tls: tls), publicKey: key, userTokens: userTokens)
    let entitlements = Entitlements(configuration: .init(
        transport: transport, cache: cache, productEntitlements: productEntitlements, log: log, statusKeys: statusKeys))
    commands = SampleCommands(entitlements: entitlements, model: EntitlementsModel(entitlements))
    Task { await entitlements.start() }
default:
    FileHandle.standardError.write(Data((usage + "\n").utf8))
    exit(2)
}
await commands.follow()
while let line = readLine() {
    guard await commands.run(line) else { break }
}
exit(0)
