import EntitlementStorage
import EntitlementdVersion

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `entitlementd` does with its arguments before it starts serving, kept apart from `main` so tests can drive it.
public enum EntitlementdCommand {
    public enum Outcome: Sendable {
        /// Print and exit without serving: `--help` or `--version` (0), a bad configuration (1) or a usage error (2).
        case exit(status: Int32, standardOutput: String, standardError: String)
        /// Serve with this configuration.
        case run(ServerConfig)
    }

    public static let usageErrorStatus: Int32 = 2
    public static let configErrorStatus: Int32 = 1

    /// Parses `arguments` (without the program name) and loads the configuration they name.
    public static func prepare(arguments: [String]) -> Outcome {
        let options: EntitlementdOptions
        do {
            switch try EntitlementdOptions.parse(arguments) {
            case .help:
                return .exit(status: 0, standardOutput: EntitlementdOptions.usage, standardError: "")
            case .version:
                return .exit(status: 0, standardOutput: "entitlementd \(EntitlementdVersion.string)\n", standardError: "")
            case .run(let parsed):
                options = parsed
            case .copyDatabase(let sqlitePath, let postgresConninfo):
                return copyDatabase(sqlitePath: sqlitePath, postgresConninfo: postgresConninfo)
            case .checkConfig(let configPath):
                return ConfigCheck.run(configPath: configPath)
            case .backup(let configPath, let destination):
                return backup(configPath: configPath, to: destination)
            case .purgeTenant(let configPath, let tenantID, let dryRun):
                return TenantPurgeCommand.run(configPath: configPath, tenantID: tenantID, dryRun: dryRun)
            }
        } catch {
            return .exit(
                status: usageErrorStatus, standardOutput: "",
                standardError: "entitlementd: \(error)\n\(EntitlementdOptions.helpPointer)")
        }
        do {
            return .run(try options.loadConfig())
        } catch {
            return .exit(status: configErrorStatus, standardOutput: "", standardError: lines(error.errors))
        }
    }

    /// Copies, then prints each table's rows and either "verified" or every tenant and table that differs.
    static func copyDatabase(sqlitePath: String, postgresConninfo: String) -> Outcome {
        let target = PostgresSettings(conninfo: postgresConninfo).redacted
        let report: DatabaseCopy.Report
        do {
            report = try DatabaseCopy.copy(sqlitePath: sqlitePath, postgresConninfo: postgresConninfo)
        } catch {
            return .exit(
                status: configErrorStatus, standardOutput: "",
                standardError: "entitlementd: migrate-store from \(sqlitePath) to \(target) failed: \(error)\n")
        }
        var lines = report.rows.map { "\($0.table): \($0.count) rows copied" }
        let mismatches = report.mismatches
        guard mismatches.isEmpty else {
            return .exit(
                status: configErrorStatus, standardOutput: lines.joined(separator: "\n") + "\n",
                standardError: mismatches.map { "entitlementd: migrate-store: \($0)\n" }.joined())
        }
        lines.append(
            "verified: every table of \(report.tenants.count) tenant(s) has the same rows and checksums in \(target)")
        return .exit(status: 0, standardOutput: lines.joined(separator: "\n") + "\n", standardError: "")
    }

    /// Copies the configured SQLite database to `destination` while the server may be writing to it.
    static func backup(configPath: String, to destination: String) -> Outcome {
        let config: ServerConfig
        do {
            config = try ServerConfig.load(path: configPath)
        } catch {
            return .exit(status: configErrorStatus, standardOutput: "", standardError: lines(error.errors))
        }
        guard config.postgres == nil else {
            return .exit(
                status: configErrorStatus, standardOutput: "",
                standardError: "entitlementd: backup copies SQLite databases; this configuration uses PostgreSQL: use pg_dump\n")
        }
        do {
            let report = try SQLiteBackup.backUp(databasePath: config.databasePath, to: destination)
            return .exit(
                status: 0,
                standardOutput: "backed up \(config.databasePath) to \(destination): \(report.bytes) bytes, schema version "
                    + "\(report.schemaVersion), integrity check ok\n",
                standardError: "")
        } catch {
            return .exit(
                status: configErrorStatus, standardOutput: "",
                standardError: "entitlementd: backup of \(config.databasePath) failed: \(error)\n")
        }
    }

    /// One `entitlementd: ...` line per item.
    static func lines(_ items: [some CustomStringConvertible], prefix: String = "entitlementd: ") -> String {
        items.map { "\(prefix)\($0)\n" }.joined()
    }

    /// Writes all of `text` to a file descriptor (1 for standard output, 2 for standard error).
    public static func emit(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            bytes = bytes.dropFirst(written)
        }
    }
}
