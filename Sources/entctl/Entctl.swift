import Encodings
import StandardServices
import EntitlementClient
import HTTP2Transport
import PosixIO

/// One run of `entctl`: the parsed command line and the command it names.
///
/// Every command checks its arguments before it connects, so a usage error never depends on the server.
struct Entctl {
    typealias UsageError = EntctlOptions.UsageError

    let options: EntctlOptions
    let arguments: CommandArguments
    let printer: Printer

    init(options: EntctlOptions) {
        self.options = options
        arguments = CommandArguments(options)
        printer = Printer(json: options.json)
    }

    /// Runs the command and returns the exit status; throws ``UsageError`` for a bad command line and the call's
    /// error (usually `RPCError`) when it fails.
    func run() async throws -> Int32 {
        switch arguments.command {
        case "health": try await health()
        case "identify": try await identify()
        case "status": try await status()
        case "watch": try await watch()
        case "purchase": try await purchase()
        case "restore": try await restore()
        case "grant": try await grant()
        case "revoke": try await revoke()
        case "customer": try await customer()
        case "attributes": try await attributes()
        case "export": try await export()
        case "audit": try await audit()
        case "delete": try await delete()
        case "events": try await events()
        case "customers": try await customers()
        case "count": try await count()
        case "trust": try await trust()
        case "metrics": try await metrics()
        case "find": try await find()
        case "refresh-purchase": try await refreshPurchase()
        case "redeem": try await redeem()
        case "redemption-code": try await redemptionCode()
        case "webhooks": try await webhooks()
        case "appstore": try await appStore()
        case "offers": try await offers()
        case "gen-key": try generateKey()
        case "hash-key": try hashKey()
        case "gen-webhook-secret": try generateWebhookSecret()
        case "verify-status": try await verifyStatus()
        case "dev": try await dev()
        default: throw CommandHelp.unknownCommand(arguments.command)
        }
    }

    /// A client for the server in the options, sending the key the command's service expects unless one was given
    /// (see ``EntctlOptions/apiKey(for:)``).
    func connect(_ key: EntctlOptions.KeyKind) throws -> EntitlementClient {
        var configuration = GRPCClientConfiguration(host: options.address.host, port: options.address.port)
        if options.tls {
            configuration.tls = .init(trustedCertificatesPath: options.caFile, serverName: options.serverName)
        }
        return try EntitlementClient(
            configuration: configuration, apiKey: options.apiKey(for: key), userToken: options.userToken,
            defaultTimeout: options.timeout)
    }

    /// A command of one non-empty argument, `what`: `call` asks the server through the client for `key`, and the
    /// answer is printed.
    func ask<Response: JSONEncodable>(
        _ what: String, with key: EntctlOptions.KeyKind, _ call: (EntitlementClient, String) async throws -> Response,
        human: (Response) -> [String]
    ) async throws -> Int32 {
        try arguments.check(positionals: [what])
        let argument = try arguments.positional(0, what)
        let response = try await call(try connect(key), argument)
        printer.print(response, human: human(response))
        return 0
    }

    /// `health [SERVICE]`: exits 0 only when the service is SERVING.
    private func health() async throws -> Int32 {
        try arguments.check(positionals: [], optional: 1)
        let status = try await connect(.none).checkHealth(service: arguments.positionals.first ?? "")
        printer.print(JSONValue.object([("status", .string("\(status)"))]), human: "\(status)")
        return status == .serving ? 0 : 1
    }
}
