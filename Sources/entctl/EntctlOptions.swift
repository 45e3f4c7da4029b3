import HTTP2Transport

#if canImport(Glibc)
import Glibc
#endif

/// `entctl`'s command line: global options, the command, its positional arguments and its own options.
///
/// Options may come before or after the command (`entctl --json status alice`, `entctl status alice --json`),
/// as `--flag VALUE` or `--flag=VALUE`; `--` ends the options, for IDs that start with a dash.
struct EntctlOptions {
    var address = ListenAddress(host: "127.0.0.1", port: 50051)
    var tls = false
    var caFile: String?
    var serverName: String?
    /// `--key`, else `ENTCTL_KEY`; nil means the command's demo key (see ``apiKey(for:)``).
    var explicitKey: String?
    var timeout: Duration = .seconds(10)
    var json = false
    var command: String?
    var positionals: [String] = []
    /// The command's own options by name (`--reason`); flags without a value map to "".
    var commandOptions: [String: String] = [:]

    static let demoPublicKey = "pk_demo_public_key_for_local_testing_only"
    static let demoSecretKey = "sk_demo_secret_key_for_local_testing_only"

    static let usage = """
        usage: entctl [options] <command> [arguments]

        EntitlementService commands (default key: the demo public key):
          identify APP_USER_ID [--anonymous-id ID]
                               resolve or create a customer, merging an anonymous one into it
          status APP_USER_ID   current status and active entitlements
          watch APP_USER_ID [--after-version N]
                               print each status event as it arrives, until Ctrl-C or the server ends the stream
          purchase APP_USER_ID SIGNED_TRANSACTION
                               attach a StoreKit 2 signed transaction (- reads it from standard input)
          restore APP_USER_ID SIGNED_TRANSACTION...
                               attach several; purchases owned by others move as the app's policy says

        AdminService commands (default key: the demo secret key):
          grant APP_USER_ID ENTITLEMENT [--duration 30d|12h|90m|45s] [--expires-at RFC3339]
                [--reason TEXT] [--idempotency-key KEY]
                               grant an entitlement (no --duration or --expires-at: it never expires)
          revoke GRANT_ID [--reason TEXT]
                               end a grant now
          customer APP_USER_ID status, aliases, grants and store transactions
          events APP_USER_ID [--page-size N] [--page-token T] [--all]
                               the customer's history, newest first

        Other commands:
          health [SERVICE]     check grpc.health.v1.Health ("" = the whole server); exits 0 only when SERVING
          gen-key public|secret
                               make a new API key and print it with its hash string for the tenants file (offline)
          hash-key KEY         print the hash string of KEY for the tenants file (offline)

        Local App Store signing, for development (offline; DIR defaults to data/dev-ca):
          dev init [--dir DIR] [--force]
                               create a local signing CA shaped like Apple's; trust its root.pem in a
                               Sandbox (or LocalTesting) tenant only, never for Production
          dev sign-transaction --product ID --bundle-id ID [--dir DIR]
                [--type auto-renewable|non-consumable|consumable|non-renewing] [--expires TIME]
                [--original-transaction-id ID] [--transaction-id ID] [--app-account-token UUID]
                [--environment Sandbox|Production] [--purchase-date TIME] [--ownership purchased|family-shared]
                [--revocation-date TIME] [--signed-date TIME] [--upgraded]
                               print a signed transaction (IDs generated when not given; bought when signed
                               unless --purchase-date says otherwise; auto-renewable subscriptions expire 30
                               days after the purchase unless --expires says otherwise; --upgraded marks a
                               transaction the user upgraded away from)
          dev sign-renewal-info --original-transaction-id ID --product ID [--dir DIR] [--auto-renew on|off]
                [--auto-renew-product ID] [--grace-period-expires TIME] [--billing-retry]
                [--environment Sandbox|Production] [--signed-date TIME]
                               print a signed renewal info (a grace period implies billing retry)
          dev sign-notification TYPE [SUBTYPE] [--bundle-id ID] [--dir DIR] [--app-apple-id N]
                [--transaction JWS] [--renewal-info JWS] [--environment Sandbox|Production] [--signed-date TIME]
                               print a signed App Store Server Notification V2 payload; the bundle ID and
                               environment default to those of --transaction
          TIME is RFC 3339 (2030-01-31T12:00:00Z) or a span from now (+30d, -1h); every date defaults to now.

        options:
          --addr HOST:PORT     server address (default 127.0.0.1:50051)
          --key KEY            API key, sent as "authorization: Bearer KEY" (default: $ENTCTL_KEY, else the
                               command's demo key)
          --json               print one JSON object per response or event (proto3 JSON field names)
          --tls                connect with TLS (verifying the server's certificate)
          --ca FILE            PEM file of trusted certificates for --tls (default: the system store)
          --server-name NAME   name to verify and send as SNI with --tls (default: the host)
          --timeout SECONDS    deadline of each call (default 10; watch has none)
          --help               show this help

        Errors print "entctl: CODE: message" and exit 1; usage errors exit 2.

        """

    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    /// Command options that take a value, and those that do not; which command accepts which is checked by the
    /// command itself (``CommandArguments``).
    static let valueOptions: Set<String> = Set([
        "--anonymous-id", "--after-version", "--duration", "--expires-at", "--reason", "--idempotency-key",
        "--page-size", "--page-token",
    ]).union(devValueOptions)
    static let flagOptions: Set<String> = Set(["--all"]).union(devFlagOptions)

    /// Parses everything after the program name; nil means `--help` (or the `help` command).
    static func parse(_ arguments: [String], environment key: String? = environmentKey()) throws(UsageError)
        -> EntctlOptions?
    {
        var options = EntctlOptions()
        options.explicitKey = key
        var remaining = arguments[...]
        var optionsEnded = false
        while let argument = remaining.popFirst() {
            if argument == "-h" && !optionsEnded { return nil }
            if optionsEnded || !argument.hasPrefix("--") {
                if options.command == nil { options.command = argument } else { options.positionals.append(argument) }
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            var name = argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            func value() throws(UsageError) -> String {
                if let inlineValue { return inlineValue }
                guard let value = remaining.popFirst(), !value.hasPrefix("--") else {
                    throw UsageError(description: "option \(name) needs a value")
                }
                return value
            }
            func noValue() throws(UsageError) {
                if inlineValue != nil { throw UsageError(description: "option \(name) takes no value") }
            }
            switch name {
            case "--help":
                return nil
            case "--addr":
                let text = try value()
                switch ListenAddress.parse(text) {
                case .success(let address): options.address = address
                case .failure(let error): throw UsageError(description: "invalid --addr '\(text)': \(error)")
                }
            case "--tls":
                try noValue()
                options.tls = true
            case "--json":
                try noValue()
                options.json = true
            case "--ca": options.caFile = try value()
            case "--server-name": options.serverName = try value()
            case "--key":
                let text = try value()
                guard !text.isEmpty else { throw UsageError(description: "option --key needs a non-empty value") }
                options.explicitKey = text
            case "--timeout":
                let text = try value()
                guard let seconds = Double(text), seconds > 0, seconds <= 86_400 else {
                    throw UsageError(description: "invalid --timeout '\(text)': expected seconds between 0 and 86400")
                }
                options.timeout = .milliseconds(Int64(seconds * 1000))
            case _ where valueOptions.contains(name):
                try options.addCommandOption(name, try value())
            case _ where flagOptions.contains(name):
                try noValue()
                try options.addCommandOption(name, "")
            default:
                throw UsageError(description: "unknown option '\(name)'")
            }
        }
        if options.command == "help" { return nil }
        guard options.command != nil else { throw UsageError(description: "missing command") }
        return options
    }

    private mutating func addCommandOption(_ name: String, _ value: String) throws(UsageError) {
        guard commandOptions.updateValue(value, forKey: name) == nil else {
            throw UsageError(description: "option \(name) given more than once")
        }
    }

    /// `ENTCTL_KEY`, unless unset or empty.
    static func environmentKey() -> String? {
        guard let raw = getenv("ENTCTL_KEY") else { return nil }
        let key = String(cString: raw)
        return key.isEmpty ? nil : key
    }

    /// Which demo key a command uses when neither `--key` nor `ENTCTL_KEY` is given.
    enum KeyKind {
        case none, publicKey, secretKey
    }

    /// The key to send: `--key`, else `ENTCTL_KEY`, else the demo key of the command's service.
    func apiKey(for kind: KeyKind) -> String? {
        if let explicitKey { return explicitKey }
        switch kind {
        case .none: return nil
        case .publicKey: return Self.demoPublicKey
        case .secretKey: return Self.demoSecretKey
        }
    }
}

/// One command's positional arguments and options, checked against what the command accepts.
struct CommandArguments {
    let command: String
    let positionals: [String]
    private let options: [String: String]

    init(_ options: EntctlOptions) {
        command = options.command ?? ""
        positionals = options.positionals
        self.options = options.commandOptions
    }

    private init(command: String, positionals: [String], options: [String: String]) {
        self.command = command
        self.positionals = positionals
        self.options = options
    }

    /// `command SUB ...` as the arguments of `command SUB` (positionals after SUB, the same options); nil without SUB.
    func subcommand() -> CommandArguments? {
        guard let name = positionals.first else { return nil }
        return CommandArguments(
            command: "\(command) \(name)", positionals: Array(positionals.dropFirst()), options: options)
    }

    typealias UsageError = EntctlOptions.UsageError

    /// Fails unless there are `required` positionals (plus up to `optional` more) and only `allowed` options.
    func check(positionals names: [String], optional: Int = 0, options allowed: Set<String> = []) throws(UsageError) {
        for name in options.keys.sorted() where !allowed.contains(name) {
            throw UsageError(description: "\(command) does not take \(name)")
        }
        guard positionals.count >= names.count else {
            throw UsageError(description: "\(command) needs \(names.joined(separator: " "))")
        }
        guard positionals.count <= names.count + optional else {
            throw UsageError(description: "\(command): unexpected argument '\(positionals[names.count + optional])'")
        }
    }

    func value(_ name: String) -> String? { options[name] }

    func flag(_ name: String) -> Bool { options[name] != nil }

    /// A non-empty positional that names something (an app user ID, a grant ID).
    func positional(_ index: Int, _ what: String) throws(UsageError) -> String {
        let text = positionals[index]
        guard !text.isEmpty else { throw UsageError(description: "\(command): \(what) must not be empty") }
        return text
    }

    func integer<Value: FixedWidthInteger>(_ name: String, _ type: Value.Type, minimum: Value) throws(UsageError)
        -> Value?
    {
        guard let text = options[name] else { return nil }
        guard let value = Value(text), value >= minimum else {
            throw UsageError(
                description: "invalid \(name) '\(text)': expected an integer from \(minimum) to \(Value.max)")
        }
        return value
    }
}
