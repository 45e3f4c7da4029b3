import EntitlementDomain
import EntitlementStorage
import Testing

@testable import EntitlementServer

@Suite("Server configuration: [storage] backend")
struct StorageBackendConfigTests {
    @Test("SQLite unless the file says postgres")
    func sqliteByDefault() throws {
        let (config, directory) = try loadConfig(configText("[storage]\nbackend = \"sqlite\"\n"))
        defer { directory.remove() }
        #expect(config.postgres == nil)
    }

    @Test("postgres with a connection string and a pool size")
    func postgres() throws {
        let (config, directory) = try loadConfig(configText("""
            [storage]
            backend = "postgres"
            postgres_url = "host=/run/postgresql dbname=entitlementd"
            postgres_max_connections = 40

            """))
        defer { directory.remove() }
        #expect(config.postgres == PostgresSettings(conninfo: "host=/run/postgresql dbname=entitlementd", maxConnections: 40))
    }

    @Test("PostgreSQL's session timeouts: 2, 30 and 10 seconds unless set, in milliseconds to the repository")
    func sessionTimeouts() throws {
        let base = "[storage]\nbackend = \"postgres\"\npostgres_url = \"dbname=e\"\n"
        let (defaults, directory) = try loadConfig(configText(base))
        defer { directory.remove() }
        #expect(
            defaults.postgres?.sessionTimeouts
                == PostgresSessionTimeouts(lockMilliseconds: 2_000, statementMilliseconds: 30_000, idleInTransactionMilliseconds: 10_000))
        let (set, other) = try loadConfig(configText(base + """
            postgres_lock_timeout_seconds = 0
            postgres_statement_timeout_seconds = 3600
            postgres_idle_in_transaction_timeout_seconds = 5

            """))
        defer { other.remove() }
        #expect(
            set.postgres?.sessionTimeouts
                == PostgresSessionTimeouts(lockMilliseconds: 0, statementMilliseconds: 3_600_000, idleInTransactionMilliseconds: 5_000))
        for (key, refused) in [
            ("postgres_lock_timeout_seconds", 61), ("postgres_statement_timeout_seconds", 3601),
            ("postgres_idle_in_transaction_timeout_seconds", -1),
        ] {
            expectConfigError(
                configText(base + "\(key) = \(refused)\n"), code: .outOfRange, line: 6, section: "storage", key: key)
            expectConfigError(
                configText("[storage]\n\(key) = 1\n"), code: .invalidValue, line: 4, section: "storage", key: key)
        }
    }

    @Test("max_write_group: 64 unless set, 1 to 1000")
    func writeGroup() throws {
        let (defaults, directory) = try loadConfig(configText(""))
        defer { directory.remove() }
        #expect(defaults.maxWriteGroup == 64)
        let (single, other) = try loadConfig(configText("[storage]\nmax_write_group = 1\n"))
        defer { other.remove() }
        #expect(single.maxWriteGroup == 1)
        expectConfigError(
            configText("[storage]\nmax_write_group = 0\n"), code: .outOfRange, line: 4, section: "storage",
            key: "max_write_group")
        expectConfigError(
            configText("[storage]\nmax_write_group = 1001\n"), code: .outOfRange, line: 4, section: "storage",
            key: "max_write_group")
    }

    @Test("max_snapshot_reads: 8 unless set, 1 to 64; max_waiting_snapshot_reads: 10000 unless set, 0 to 1000000")
    func snapshotReads() throws {
        let (defaults, directory) = try loadConfig(configText(""))
        defer { directory.remove() }
        #expect(defaults.snapshotReads.inFlight == 8 && defaults.snapshotReads.waiting == 10_000)
        let (set, other) = try loadConfig(
            configText("[storage]\nmax_snapshot_reads = 64\nmax_waiting_snapshot_reads = 0\n"))
        defer { other.remove() }
        #expect(set.snapshotReads.inFlight == 64 && set.snapshotReads.waiting == 0)
        for (key, refused) in [("max_snapshot_reads", 0), ("max_snapshot_reads", 65), ("max_waiting_snapshot_reads", -1),
            ("max_waiting_snapshot_reads", 1_000_001)]
        {
            expectConfigError(
                configText("[storage]\n\(key) = \(refused)\n"), code: .outOfRange, line: 4, section: "storage", key: key)
        }
    }

    @Test("half-edited files are refused, not read as SQLite", arguments: [
        ("[storage]\nbackend = \"postgres\"\n", ConfigError.Code.missingKey, nil as Int?, "postgres_url"),
        ("[storage]\npostgres_url = \"dbname=x\"\n", .invalidValue, 4, "postgres_url"),
        ("[storage]\npostgres_max_connections = 3\n", .invalidValue, 4, "postgres_max_connections"),
        ("[storage]\nbackend = \"mysql\"\n", .invalidValue, 4, "backend"),
        ("[storage]\nbackend = \"postgres\"\npostgres_url = \" \"\n", .invalidValue, 5, "postgres_url"),
        ("[storage]\nbackend = \"postgres\"\npostgres_url = \"x\"\npostgres_max_connections = 0\n", .outOfRange, 6,
         "postgres_max_connections"),
    ])
    func refused(extra: String, code: ConfigError.Code, line: Int?, key: String) {
        expectConfigError(configText(extra), code: code, line: line, section: "storage", key: key)
    }

    @Test("logs never carry the password, in either form", arguments: [
        ("host=db user=app password=s3cret dbname=e", "host=db user=app password=*** dbname=e"),
        ("postgresql://app:s3cret@db:5432/e?sslmode=require", "postgresql://app:***@db:5432/e?sslmode=require"),
        ("postgresql://app@db/e?password=s3cret&sslmode=require", "postgresql://app@db/e?password=***&sslmode=require"),
        ("host=db dbname=e", "host=db dbname=e"),
    ])
    func redacted(conninfo: String, logged: String) {
        #expect(PostgresSettings(conninfo: conninfo).redacted == logged)
    }
}
