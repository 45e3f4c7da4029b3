import BoundedText
public import PosixIO
public import RPCCore

/// The command line of `entitlementd`: `--config FILE [--listen HOST:PORT] [--log-level LEVEL]`.
public struct EntitlementdOptions: Sendable, Equatable {
    /// What the command line asks for.
    public enum Invocation: Sendable, Equatable {
        /// `--help`: print ``EntitlementdOptions/usage`` and exit 0.
        case help
        /// `--version`: print the version and exit 0.
        case version
        case run(EntitlementdOptions)
        /// `migrate-store --from sqlite:PATH --to postgres:CONNINFO`: copy a SQLite database into PostgreSQL.
        case copyDatabase(sqlitePath: String, postgresConninfo: String)
        /// `check-config --config FILE`: load and check the configuration and tenants file without serving.
        case checkConfig(configPath: String)
        /// `backup --config FILE --to PATH`: copy the configured SQLite database while the server runs.
        case backup(configPath: String, destination: String)
        /// `purge-tenant --config FILE --tenant ID [--dry-run]`: delete (or count) every row of a removed tenant.
        case purgeTenant(configPath: String, tenantID: String, dryRun: Bool)
    }

    /// The configuration file, as given.
    public var configPath: String
    /// Replaces `[server] listen` when set.
    public var listen: ListenAddress?
    /// Replaces `[server] log_level` when set.
    public var logLevel: Logger.Level?

    public init(configPath: String, listen: ListenAddress? = nil, logLevel: Logger.Level? = nil) {
        self.configPath = configPath
        self.listen = listen
        self.logLevel = logLevel
    }

    public static let usage = """
        USAGE: entitlementd --config FILE [--listen HOST:PORT] [--log-level LEVEL]
               entitlementd migrate-store --from sqlite:PATH --to postgres:CONNINFO
               entitlementd check-config --config FILE
               entitlementd backup --config FILE --to PATH
               entitlementd purge-tenant --config FILE --tenant ID [--dry-run]

        Runs the entitlementd gRPC server (HTTP/2 over TCP, plaintext h2c or TLS) until SIGTERM or SIGINT,
        then drains in-flight calls and exits.

        OPTIONS:
          --config FILE         Configuration file to load (required). Every key is described in
                                Config/entitlementd.example.toml.
          --listen HOST:PORT    Listen here instead of [server] listen, e.g. 127.0.0.1:50051 or [::1]:50051.
                                Port 0 picks a free port; the bound address is printed on standard output
                                as "entitlementd listening on HOST:PORT".
          --log-level LEVEL     Log level instead of [server] log_level: debug, info, warning or error.
          -h, --help            Show this help and exit.
          --version             Print the version and exit.

        check-config loads the configuration file and its tenants file as the server would, also reading the TLS
        key pair, the outbound CA file and every tenant's Google Play and App Store Server API key, and prints every
        problem it finds (exit 1) or "ok" (exit 0), without listening or opening the database.

        backup copies the SQLite database FILE configures to PATH (a new file) while the server keeps running, with
        SQLite's online backup API: one consistent snapshot, checked with PRAGMA integrity_check before it is
        renamed into place. To restore, stop the server, copy the backup over the database file (removing its -wal
        and -shm files) and start it again. On PostgreSQL, use pg_dump.

        purge-tenant deletes every row of tenant ID from the database FILE configures, in one transaction (on
        SQLite, then cleared from the files), and prints each table's count; with --dry-run it only counts. A
        tenant still in the tenants file is refused: remove it there first (a removed tenant's data is kept until
        purged).

        migrate-store copies the SQLite database at PATH (stop the server first) into the empty PostgreSQL
        database CONNINFO names (a libpq connection string or postgresql:// URL), in one transaction, then
        compares both per tenant and table (row counts and checksums) and prints what it found.

        EXIT STATUS: 0 after a clean shutdown (or a verified copy), 1 for a configuration, startup or copy error,
        2 for a usage error.

        """

    /// What a usage error is followed by, instead of the whole usage (which would scroll the error away).
    public static let helpPointer = "Run 'entitlementd --help' for the options and commands.\n"

    private static let subcommands = ["check-config", "migrate-store", "backup", "purge-tenant"]
    private static let options = ["--config", "--listen", "--log-level", "--help", "--version"]

    /// Parses the arguments after the program name. `--help` anywhere wins over everything else, then `--version`.
    public static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        if arguments.contains(where: { $0 == "--help" || $0 == "-h" }) { return .help }
        if arguments.contains("--version") { return .version }
        if arguments.first == "migrate-store" { return try parseCopyDatabase(Array(arguments.dropFirst())) }
        if arguments.first == "check-config" {
            let rest = Array(arguments.dropFirst())
            guard rest.count == 2, rest[0] == "--config", !rest[1].isEmpty else {
                throw UsageError("check-config takes exactly --config FILE")
            }
            return .checkConfig(configPath: rest[1])
        }
        if arguments.first == "purge-tenant" {
            var rest = Array(arguments.dropFirst())
            let dryRun = rest.last == "--dry-run"
            if dryRun { rest.removeLast() }
            guard rest.count == 4, rest[0] == "--config", rest[2] == "--tenant", !rest[1].isEmpty, !rest[3].isEmpty else {
                throw UsageError("purge-tenant takes exactly --config FILE --tenant ID, then --dry-run if wanted")
            }
            return .purgeTenant(configPath: rest[1], tenantID: rest[3], dryRun: dryRun)
        }
        if arguments.first == "backup" {
            let rest = Array(arguments.dropFirst())
            guard rest.count == 4, rest[0] == "--config", rest[2] == "--to", !rest[1].isEmpty, !rest[3].isEmpty else {
                throw UsageError("backup takes exactly --config FILE --to PATH")
            }
            return .backup(configPath: rest[1], destination: rest[3])
        }

        if let first = arguments.first, !first.hasPrefix("-") {
            let guess = closestMatch(to: first, in: subcommands).map { " (did you mean \($0)?)" } ?? ""
            throw UsageError("unexpected argument '\(first)'\(guess)")
        }
        var configPath: String?
        var listen: ListenAddress?
        var logLevel: Logger.Level?
        var seen: Set<String> = []
        var index = 0

        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("-") else { throw UsageError("unexpected argument '\(argument)'") }

            var name = argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            guard ["--config", "--listen", "--log-level"].contains(name) else {
                let guess = closestMatch(to: name, in: options).map { " (did you mean \($0)?)" } ?? ""
                throw UsageError("unknown option '\(name)'\(guess)")
            }
            guard seen.insert(name).inserted else { throw UsageError("option \(name) is given more than once") }

            let value: String
            if let inlineValue {
                value = inlineValue
            } else if index < arguments.count, !arguments[index].hasPrefix("--") {
                value = arguments[index]
                index += 1
            } else {
                throw UsageError("option \(name) needs a value")
            }
            guard !value.isEmpty else { throw UsageError("option \(name) needs a non-empty value") }

            switch name {
            case "--config":
                configPath = value
            case "--listen":
                switch ListenAddress.parse(value) {
                case .success(let address): listen = address
                case .failure(let error): throw UsageError("invalid --listen value: \(error.reason)")
                }
            default:  // --log-level
                guard let level = Logger.Level(configName: value) else {
                    let names = Logger.Level.configNames.split(separator: ", ").map(String.init)
                    let guess = closestMatch(to: value.lowercased(), in: names).map { " (did you mean \($0)?)" } ?? ""
                    throw UsageError("invalid --log-level value '\(value)': expected \(Logger.Level.configNames)\(guess)")
                }
                logLevel = level
            }
        }

        guard let configPath else { throw UsageError("missing required option --config FILE") }
        return .run(EntitlementdOptions(configPath: configPath, listen: listen, logLevel: logLevel))
    }

    private static func parseCopyDatabase(_ arguments: [String]) throws(UsageError) -> Invocation {
        var values: [String: String] = [:]
        var index = 0
        while index < arguments.count {
            let name = arguments[index]
            guard name == "--from" || name == "--to" else {
                throw UsageError("migrate-store: unexpected argument '\(name)'")
            }
            guard values[name] == nil else { throw UsageError("migrate-store: \(name) is given more than once") }
            guard index + 1 < arguments.count else { throw UsageError("migrate-store: \(name) needs a value") }
            values[name] = arguments[index + 1]
            index += 2
        }
        guard let from = values["--from"], from.hasPrefix("sqlite:"), from.count > "sqlite:".count else {
            throw UsageError("migrate-store: --from must be sqlite:PATH")
        }
        guard let to = values["--to"], to.hasPrefix("postgres:"), to.count > "postgres:".count else {
            throw UsageError("migrate-store: --to must be postgres:CONNINFO")
        }
        return .copyDatabase(
            sqlitePath: String(from.dropFirst("sqlite:".count)), postgresConninfo: String(to.dropFirst("postgres:".count)))
    }

    /// Loads the configuration file and applies the command-line overrides.
    public func loadConfig() throws(ConfigErrors) -> ServerConfig {
        var config = try ServerConfig.load(path: configPath)
        if let listen { config.listenAddress = listen }
        if let logLevel { config.logLevel = logLevel }
        return config
    }
}

/// A command line that cannot be understood; `entitlementd` prints it with the usage and exits 2.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
