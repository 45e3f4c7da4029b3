import EntitlementDomain
import Testing

@testable import EntitlementStorage

/// The repository over TLS, as `postgres_url` configures it with libpq's `sslmode` and `sslrootcert`.
@Suite(.enabled(if: PostgresTestDatabase.tlsConninfo != nil, "no TLS cluster (Scripts/postgres start makes one)"))
struct PostgresTLSTests {
    @Test func aVerifiedTLSConnectionCarriesTheRepository() throws {
        let tls = try #require(PostgresTestDatabase.tlsConninfo)
        let schema = "tls_" + PostgresTestDatabase.uniqueTable("s")
        try PostgresAdministration.createSchema(schema, conninfo: tls)
        let repository = try PostgresRepository(conninfo: tls + " options=-csearch_path=\(schema)")
        _ = try repository.write { try $0.customer("t", "alice") }
        #expect(try repository.snapshot(tenantID: "t", appUserID: "alice") != nil)
        let connection = try PostgresConnection(conninfo: tls)
        #expect(try connection.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").rows == [["t"]])
    }

    /// The pool's look for an ended idle session takes any input on the socket for the server's farewell: TLS
    /// sends none of its own to an idle session, so a live one is reused.
    @Test func aPooledTLSSessionIsReusedNotTakenForEnded() throws {
        let pool = PostgresConnectionPool(
            conninfo: try #require(PostgresTestDatabase.tlsConninfo), maxConnections: 1, checkoutTimeout: .seconds(5))
        let sessions = try (0..<3).map { _ in
            try pool.withConnection { connection throws(PostgresError) in
                try connection.query("SELECT pg_backend_pid()").rows
            }
        }
        #expect(Set(sessions).count == 1)
    }

    @Test func aServerCertificateTheConfiguredRootDoesNotSignIsRefused() throws {
        let tls = try #require(PostgresTestDatabase.tlsConninfo)
        let otherRoot = tls.replacing(/sslrootcert=\S+/, with: "sslrootcert=/etc/ssl/certs/ca-certificates.crt")
        let error = #expect(throws: StorageError.self) { try PostgresRepository(conninfo: otherRoot) }
        #expect(error?.code == .unavailable)
        #expect(error?.message.contains("certificate verify failed") == true, "\(String(describing: error))")
    }

    @Test func plainTCPIsRefusedByTheServer() throws {
        let tls = try #require(PostgresTestDatabase.tlsConninfo)
        let plain = tls.replacing(/sslmode=\S+/, with: "sslmode=disable")
        let error = #expect(throws: StorageError.self) { try PostgresRepository(conninfo: plain) }
        #expect(error?.message.contains("no encryption") == true, "\(String(describing: error))")
    }
}
