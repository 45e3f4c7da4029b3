import Foundation
import Testing
import TestSupport

@testable import EntitlementServer

/// `entitlementd check-config`: the repository's own configurations pass; each kind of broken file is reported with
/// what is wrong, and every problem is reported, not only the first.
@Suite struct ConfigCheckTests {
    /// A scratch directory holding a configuration, with the demo tenants file and its key files copied in.
    final class Scratch {
        let directory = NSTemporaryDirectory() + "check-config-" + UUID().uuidString

        init() throws {
            let files = FileManager.default
            try files.createDirectory(atPath: directory, withIntermediateDirectories: true)
            for name in ["tenants.demo.json", "dev-play", "dev-ca", "dev-app-store-api", "dev-status"] {
                try files.copyItem(atPath: RepositoryFiles.path("Config/" + name), toPath: directory + "/" + name)
            }
        }

        deinit { try? FileManager.default.removeItem(atPath: directory) }

        func write(_ name: String, _ text: String) throws {
            try text.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
        }

        /// `[server]` and `[storage]` with the demo tenants, then `more`.
        func config(_ more: String = "") throws -> String {
            try write(
                "server.toml",
                """
                [server]
                listen = "127.0.0.1:0"
                [storage]
                database = "data/db.sqlite"
                tenants = "tenants.demo.json"
                \(more)
                """)
            return directory + "/server.toml"
        }

        /// The demo tenants file with one change to its tenant.
        func editTenant(_ change: (inout [String: Any]) -> Void) throws {
            let path = directory + "/tenants.demo.json"
            var file = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
            var tenants = try #require(file["tenants"] as? [[String: Any]])
            change(&tenants[0])
            file["tenants"] = tenants
            try JSONSerialization.data(withJSONObject: file).write(to: URL(fileURLWithPath: path))
        }
    }

    func outcome(_ path: String) -> (status: Int32, output: String, errors: String) {
        guard case .exit(let status, let output, let errors) = EntitlementdCommand.prepare(arguments: ["check-config", "--config", path])
        else { return (-1, "", "check-config ran the server") }
        return (status, output, errors)
    }

    @Test(arguments: ["Config/demo.toml", "Config/entitlementd.example.toml", "Config/instance-a.toml"])
    func theRepositorysConfigurationsPass(file: String) {
        let result = outcome(RepositoryFiles.path(file))
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("ok: "))
        #expect(result.errors.isEmpty)
    }

    @Test func anUnknownKeyNamesTheFileAndLine() throws {
        let scratch = try Scratch()
        let result = outcome(try scratch.config("[metrics]\nlisten_on = \"x\""))
        #expect(result.status == 1)
        #expect(result.errors.contains("server.toml:7"), "\(result.errors)")
        #expect(result.errors.contains("listen_on"))
    }

    @Test func aTLSKeyThatDoesNotMatchItsCertificate() throws {
        let scratch = try Scratch()
        let (one, two) = (try TestCertificates(), try TestCertificates())
        let result = outcome(
            try scratch.config("[tls]\ncertificate = \"\(one.certificatePath)\"\nprivate_key = \"\(two.privateKeyPath)\""))
        #expect(result.status == 1)
        #expect(result.errors.contains("[tls]") && result.errors.contains("private key"), "\(result.errors)")
    }

    @Test func aCertificateThatIsNotPEM() throws {
        let scratch = try Scratch()
        let key = try TestCertificates()
        try scratch.write("cert.pem", "not a certificate\n")
        let result = outcome(try scratch.config("[tls]\ncertificate = \"cert.pem\"\nprivate_key = \"\(key.privateKeyPath)\""))
        #expect(result.status == 1)
        #expect(result.errors.contains("cannot load certificate chain"), "\(result.errors)")
    }

    @Test func aSessionTicketSecretTooShortIsNamedButNotShown() throws {
        let scratch = try Scratch()
        let key = try TestCertificates()
        try scratch.write("ticket-secret", "short secret\n")
        let result = outcome(
            try scratch.config(
                "[tls]\ncertificate = \"\(key.certificatePath)\"\nprivate_key = \"\(key.privateKeyPath)\"\n"
                    + "session_ticket_secret_file = \"ticket-secret\""))
        #expect(result.status == 1)
        #expect(
            result.errors.contains("[tls]: the session ticket secret '\(scratch.directory)/ticket-secret' holds 12 bytes"),
            "\(result.errors)")
        #expect(!result.errors.contains("short secret"))
    }

    @Test func anOutboundCAFileThatIsNotPEM() throws {
        let scratch = try Scratch()
        try scratch.write("ca.pem", "garbage\n")
        let result = outcome(try scratch.config("[outbound_http]\ntrusted_certificates = \"ca.pem\""))
        #expect(result.status == 1)
        #expect(result.errors.contains("[outbound_http] trusted_certificates"), "\(result.errors)")
    }

    @Test func everyProblemIsReportedNotOnlyTheFirst() throws {
        let scratch = try Scratch()
        let key = try TestCertificates()
        try scratch.write("cert.pem", "not a certificate\n")
        try scratch.write("ca.pem", "garbage\n")
        let result = outcome(
            try scratch.config(
                "[tls]\ncertificate = \"cert.pem\"\nprivate_key = \"\(key.privateKeyPath)\"\n"
                    + "[outbound_http]\ntrusted_certificates = \"ca.pem\""))
        #expect(result.status == 1)
        #expect(result.errors.split(separator: "\n").count == 2, "\(result.errors)")
        #expect(result.errors.contains("[tls]") && result.errors.contains("[outbound_http]"))
    }

    /// Problems of the same file, reported in file order, each with the file and its line.
    @Test func everyProblemOfTheFileIsReportedWithItsLine() throws {
        let scratch = try Scratch()
        try scratch.write(
            "server.toml",
            """
            [server]
            listen = "127.0.0.1:0"
            shutdown_drain_delay_seconds = 301
            log_level = "verbose"
            [limits]
            max_streams = 10
            [storage]
            tenants = "missing.json"
            """)
        let result = outcome(scratch.directory + "/server.toml")
        #expect(result.status == 1)
        let lines = result.errors.split(separator: "\n").map(String.init)
        let expected = [
            ":3: [server] shutdown_drain_delay_seconds: expected an integer between 0 and 300, got 301",
            ":4: [server] log_level: expected one of debug, info, warning, error, got \"verbose\"",
            ":6: [limits] max_streams: unknown key; known keys in [limits] are max_concurrent_streams, ",
            ":8: [storage] tenants: file \"\(scratch.directory)/missing.json\" does not exist",
        ]
        #expect(lines.count == expected.count, "\(result.errors)")
        for (line, fragment) in zip(lines, expected) {
            #expect(line.hasPrefix("entitlementd: check-config: \(scratch.directory)/server.toml" + fragment), "\(line)")
        }
        // The tenants key has its problem: no warning that none is configured.
        #expect(!result.output.contains("no [storage] tenants file"), "\(result.output)")
    }

    /// A problem in the configuration file does not stop the check of the tenants file it names.
    @Test func theTenantsFileIsCheckedDespiteAProblemInTheConfiguration() throws {
        let scratch = try Scratch()
        try scratch.write("tenants.demo.json", "{ \"tenants\": [")
        let result = outcome(try scratch.config("[grpc_web]\nheartbeat_seconds = 0"))
        #expect(result.status == 1)
        let lines = result.errors.split(separator: "\n")
        #expect(lines.count == 2, "\(result.errors)")
        #expect(lines.first?.contains("server.toml:7: [grpc_web] heartbeat_seconds") == true, "\(result.errors)")
        #expect(lines.last?.contains("tenants.demo.json") == true, "\(result.errors)")
    }

    @Test func aTenantsFileThatIsNotJSON() throws {
        let scratch = try Scratch()
        try scratch.write("tenants.demo.json", "{ \"tenants\": [")
        let result = outcome(try scratch.config())
        #expect(result.status == 1)
        #expect(result.errors.contains("tenants.demo.json"), "\(result.errors)")
    }

    @Test func aPlayKeyWhosePrivateKeyDoesNotParse() throws {
        let scratch = try Scratch()
        // The loader checks the key file's shape; the key itself is parsed only when Google is first called.
        let key = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: scratch.directory + "/dev-play/service-account.json")))
                as? [String: Any])
        var broken = key
        broken["private_key"] = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"
        try JSONSerialization.data(withJSONObject: broken).write(
            to: URL(fileURLWithPath: scratch.directory + "/dev-play/service-account.json"))
        let result = outcome(try scratch.config())
        #expect(result.status == 1)
        #expect(result.errors.contains("play_store.service_account_key_file"), "\(result.errors)")
    }

    @Test func aStripeSecretOfTheWrongKindIsRefused() throws {
        let scratch = try Scratch()
        try scratch.editTenant { tenant in
            var stripe = tenant["stripe"] as? [String: Any] ?? [:]
            stripe["webhook_secrets"] = ["not-a-whsec"]
            tenant["stripe"] = stripe
        }
        let result = outcome(try scratch.config())
        #expect(result.status == 1)
        #expect(result.errors.contains("webhook_secrets"), "\(result.errors)")
    }

    @Test func aWebhookURLThatIsNotHTTPS() throws {
        let scratch = try Scratch()
        try scratch.editTenant { tenant in
            tenant["webhooks"] = [["id": "backend", "url": "ftp://example.com/hook", "secrets": ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"]]]
        }
        let result = outcome(try scratch.config())
        #expect(result.status == 1)
        #expect(result.errors.contains("url"), "\(result.errors)")
    }
}
