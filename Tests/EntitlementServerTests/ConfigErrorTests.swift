import Foundation
import Testing

@testable import EntitlementServer

@Suite("Server configuration: errors name file, line, key and problem")
struct ConfigErrorTests {
    @Test("the message format of the documented example")
    func documentedExample() throws {
        let text = """
            [server]
            listen = "127.0.0.1:50051"
            # 3
            # 4
            # 5
            # 6
            # 7
            # 8
            # 9
            # 10
            [limits]
            max_concurrent_streams = "abc"
            """
        let error = try #require(configError(text))
        #expect(error.code == .typeMismatch)
        #expect(
            error.description
                == "\(error.file):12: [limits] max_concurrent_streams: expected an integer between 1 and 10000, got \"abc\""
        )
    }

    // MARK: Types and ranges

    @Test("a value of the wrong type", arguments: [
        ("[limits]\nmax_concurrent_streams = true\n", "limits", "max_concurrent_streams", "got true"),
        ("[keepalive]\ntimeout_seconds = \"5\"\n", "keepalive", "timeout_seconds", "got \"5\""),
        ("log_level = 3\n", "server", "log_level", "expected a string in double quotes, got 3"),
        ("[storage]\ndatabase = false\n", "storage", "database", "got false"),
    ])
    func wrongType(extra: String, section: String, key: String, fragment: String) {
        let line = configText(extra).split(separator: "\n", omittingEmptySubsequences: false).count - 1
        expectConfigError(
            configText(extra), code: .typeMismatch, line: line, section: section, key: key, contains: [fragment]
        )
    }

    @Test("a value out of its bounds", arguments: [
        ("[limits]\nmax_concurrent_streams = 0\n", "limits", "max_concurrent_streams", "between 1 and 10000, got 0"),
        ("[limits]\nmax_concurrent_streams = 10_001\n", "limits", "max_concurrent_streams", "got 10_001"),
        ("event_loop_threads = -1\n", "server", "event_loop_threads", "between 0 and 1024, got -1"),
        ("[limits]\ninitial_window_bytes = 2147483648\n", "limits", "initial_window_bytes", "and 2147483647"),
        ("[keepalive]\ninterval_seconds = 0\n", "keepalive", "interval_seconds", "got 0"),
        (
            "[limits]\nmax_receive_message_bytes = 99999999999999999999999\n", "limits", "max_receive_message_bytes",
            "got 99999999999999999999999"
        ),
    ])
    func outOfRange(extra: String, section: String, key: String, fragment: String) {
        let line = configText(extra).split(separator: "\n", omittingEmptySubsequences: false).count - 1
        expectConfigError(
            configText(extra), code: .outOfRange, line: line, section: section, key: key, contains: [fragment]
        )
    }

    @Test("an unknown log level")
    func unknownLogLevel() {
        expectConfigError(
            configText("log_level = \"verbose\"\n"), code: .invalidValue, line: 3, section: "server", key: "log_level",
            contains: ["debug, info, warning, error", "\"verbose\""]
        )
    }

    // MARK: Names

    @Test("an unknown key, with a suggestion for a typo")
    func unknownKey() {
        expectConfigError(
            configText("[limits]\nmax_concurent_streams = 10\n"), code: .unknownKey, line: 4, section: "limits",
            key: "max_concurent_streams", contains: ["did you mean max_concurrent_streams?"]
        )
    }

    @Test("a key that moved to the tenants file says where")
    func movedKey() {
        expectConfigError(
            configText("[webhooks]\nretention_days = 14\n"), code: .unknownKey, line: 4, section: "webhooks",
            key: "retention_days", contains: ["no longer a server setting", "\"webhook_days\": N", "tenants file"]
        )
        expectConfigError(
            configText("[webhooks]\nfailed_retention_days = 60\n"), code: .unknownKey, line: 4, section: "webhooks",
            key: "failed_retention_days", contains: ["\"failed_webhook_days\": N"]
        )
    }

    @Test("an unknown section")
    func unknownSection() {
        expectConfigError(
            configText("\n[limit]\nmax_concurrent_streams = 10\n"), code: .unknownSection, line: 4,
            section: "limit", key: nil, contains: ["did you mean [limits]?"]
        )
    }

    @Test("a key set twice")
    func duplicateKey() {
        expectConfigError(
            "[server]\nlisten = \"127.0.0.1:1\"\nlisten = \"127.0.0.1:2\"\n", code: .duplicateKey, line: 3,
            section: "server", key: "listen", contains: ["first on line 2"]
        )
    }

    @Test("a section opened twice")
    func duplicateSection() {
        expectConfigError(
            configText("[limits]\n[keepalive]\n[limits]\n"), code: .duplicateSection, line: 5, section: "limits",
            key: nil, contains: ["first on line 3"]
        )
    }

    @Test("a key before any section")
    func keyOutsideSection() {
        expectConfigError(
            "listen = \"127.0.0.1:1\"\n", code: .keyOutsideSection, line: 1, section: nil, key: "listen"
        )
    }

    @Test("listen is required")
    func missingListen() {
        expectConfigError(
            "[server]\nlog_level = \"info\"\n", code: .missingKey, line: nil, section: "server", key: "listen"
        )
    }

    // MARK: Listen address

    @Test("bad listen addresses", arguments: [
        ("127.0.0.1", "missing :PORT"),
        ("127.0.0.1:", "missing port"),
        (":50051", "missing host"),
        ("127.0.0.1:65536", "between 0 and 65535"),
        ("127.0.0.1:-1", "between 0 and 65535"),
        ("127.0.0.1:http", "between 0 and 65535"),
        ("256.1.1.1:80", "not a valid IPv4 address"),
        ("::1:50051", "in brackets"),
        ("[::1]50051", "missing :PORT"),
        ("[::1:50051", "missing ]"),
        ("[::g]:50051", "not a valid IPv6 address"),
        ("[127.0.0.1]:80", "not a valid IPv6 address"),
        ("bad_host!:80", "not a valid IP address or host name"),
        ("", "empty"),
        ("127.0.0.1 :80", "no spaces"),
    ])
    func badListen(address: String, fragment: String) {
        expectConfigError(
            "[server]\nlisten = \"\(address)\"\n", code: .invalidListenAddress, line: 2, section: "server",
            key: "listen", contains: [fragment]
        )
    }

    // MARK: TLS and files

    @Test("TLS with a certificate but no key, and the reverse")
    func tlsHalfConfigured() {
        expectConfigError(
            configText("[tls]\ncertificate = \"c.pem\"\n"), files: ["c.pem": "x"], code: .tlsIncomplete, line: 4,
            section: "tls", key: "certificate", contains: ["private_key must be set too"]
        )
        expectConfigError(
            configText("[tls]\n\nprivate_key = \"k.pem\"\n"), files: ["k.pem": "x"], code: .tlsIncomplete, line: 5,
            section: "tls", key: "private_key", contains: ["certificate must be set too"]
        )
    }

    @Test("a certificate file that does not exist")
    func missingCertificate() {
        expectConfigError(
            configText("[tls]\ncertificate = \"missing.pem\"\nprivate_key = \"k.pem\"\n"), files: ["k.pem": "x"],
            code: .fileNotFound, line: 4, section: "tls", key: "certificate", contains: ["/missing.pem", "does not exist"]
        )
    }

    @Test("a private key path that is a directory")
    func keyIsDirectory() {
        expectConfigError(
            configText("[tls]\ncertificate = \"c.pem\"\nprivate_key = \"keys\"\n"),
            files: ["c.pem": "x", "keys/k.pem": "x"], code: .fileNotReadable, line: 5, section: "tls",
            key: "private_key", contains: ["not a regular file"]
        )
    }

    @Test("a session ticket rotation outside 5 minutes to 7 days", arguments: [299, 604_801])
    func ticketRotationOutOfRange(seconds: Int) {
        expectConfigError(
            configText("[tls]\ncertificate = \"c.pem\"\nprivate_key = \"k.pem\"\nsession_ticket_rotation_seconds = \(seconds)\n"),
            files: ["c.pem": "x", "k.pem": "x"], code: .outOfRange, line: 6, section: "tls",
            key: "session_ticket_rotation_seconds", contains: ["between 300 and 604800, got \(seconds)"]
        )
    }

    @Test("a session ticket secret file that does not exist")
    func missingTicketSecret() {
        expectConfigError(
            configText("[tls]\ncertificate = \"c.pem\"\nprivate_key = \"k.pem\"\nsession_ticket_secret_file = \"nope\"\n"),
            files: ["c.pem": "x", "k.pem": "x"], code: .fileNotFound, line: 6, section: "tls",
            key: "session_ticket_secret_file", contains: ["/nope", "does not exist"]
        )
    }

    @Test("ticket settings with resumption off, or without TLS, are refused rather than ignored")
    func ticketSettingsThatWouldMeanNothing() {
        expectConfigError(
            configText(
                "[tls]\ncertificate = \"c.pem\"\nprivate_key = \"k.pem\"\nsession_resumption = false\n"
                    + "session_ticket_rotation_seconds = 600\n"),
            files: ["c.pem": "x", "k.pem": "x"], code: .invalidValue, line: 7, section: "tls",
            key: "session_ticket_rotation_seconds", contains: ["applies only with session_resumption = true"]
        )
        expectConfigError(
            configText("[tls]\nsession_ticket_secret_file = \"s\"\n"), files: ["s": "x"], code: .invalidValue, line: 4,
            section: "tls", key: "session_ticket_secret_file", contains: ["applies only with certificate and private_key"]
        )
    }

    @Test("a database whose directory cannot be created")
    func databaseDirectoryBlocked() {
        expectConfigError(
            configText("[storage]\ndatabase = \"blocker/db.sqlite\"\n"), files: ["blocker": "a file"],
            code: .storageDirectory, line: 4, section: "storage", key: "database", contains: ["not a directory"]
        )
    }

    @Test("an empty database path")
    func emptyDatabasePath() {
        expectConfigError(
            configText("[storage]\ndatabase = \"\"\n"), code: .invalidValue, line: 4, section: "storage",
            key: "database", contains: ["empty"]
        )
    }

    @Test("a configuration file that does not exist")
    func missingConfigFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/nope.toml"
        do {
            _ = try ServerConfig.load(path: path)
            Issue.record("expected an error")
        } catch {
            #expect(error.errors.map(\.code) == [.unreadableFile])
            #expect(error.description.hasPrefix("\(path): cannot read the configuration file: "))
        }
    }

    // MARK: Syntax

    @Test("an unterminated string")
    func unterminatedString() {
        expectConfigError(
            "[server]\nlisten = \"127.0.0.1:50051\n", code: .unterminatedString, line: 2, section: "server",
            key: "listen", contains: ["unterminated string"]
        )
    }

    @Test("syntax errors", arguments: [
        ("[limits]\nmax_concurrent_streams 10\n", ConfigError.Code.syntax, "expected = after the key"),
        ("[limits]\nmax_concurrent_streams = \n", .syntax, "missing value"),
        ("[limits]\nmax_concurrent_streams = 10 10\n", .syntax, "unexpected text after the value"),
        ("[limits]\nmax_concurrent_streams = ten\n", .syntax, "strings must be in double quotes"),
        ("[limits]\nmax_concurrent_streams = 010\n", .syntax, "leading zeros"),
        ("[limits]\nmax_concurrent_streams = 1__0\n", .syntax, "underscore"),
        ("[limits]\nmax_concurrent_streams = 10_\n", .syntax, "underscore"),
        ("[limits]\nmax_concurrent_streams = 1.5\n", .unsupportedSyntax, "floating-point"),
        ("[limits]\nmax_concurrent_streams = 0x10\n", .unsupportedSyntax, "hexadecimal"),
        ("[limits]\nmax_concurrent_streams = [1]\n", .unsupportedSyntax, "arrays"),
        ("[limits]\nmax_concurrent_streams = {a = 1}\n", .unsupportedSyntax, "inline tables"),
        ("[storage]\ndatabase = '''x.sqlite'''\n", .unsupportedSyntax, "multi-line literal strings"),
        ("[storage]\ndatabase = \"\"\"x\"\"\"\n", .unsupportedSyntax, "multi-line strings"),
        ("[storage]\ndatabase = \"a\\qb\"\n", .invalidEscape, "\\q"),
        ("[storage]\ndatabase = \"a\\u12\"\n", .invalidEscape, "4 hex digits"),
        ("[storage]\ndatabase = \"a\\uD800\"\n", .invalidEscape, "surrogate"),
    ])
    func valueSyntax(extra: String, code: ConfigError.Code, fragment: String) {
        let section = extra.hasPrefix("[storage]") ? "storage" : "limits"
        let key = extra.hasPrefix("[storage]") ? "database" : "max_concurrent_streams"
        expectConfigError(configText(extra), code: code, line: 4, section: section, key: key, contains: [fragment])
    }

    @Test("header syntax errors", arguments: [
        ("[limits\n", ConfigError.Code.syntax, "expected ]"),
        ("[]\n", .syntax, "expected a section name"),
        ("[limits] x\n", .syntax, "unexpected text after the section header"),
        ("[[limits]]\n", .unsupportedSyntax, "arrays of tables"),
        ("[limits.http]\n", .unsupportedSyntax, "nested sections"),
        ("[\"limits\"]\n", .unsupportedSyntax, "quoted section names"),
    ])
    func headerSyntax(extra: String, code: ConfigError.Code, fragment: String) {
        expectConfigError(configText(extra), code: code, line: 3, section: nil, key: nil, contains: [fragment])
    }

    @Test("key syntax errors", arguments: [
        ("limits.max = 1\n", ConfigError.Code.unsupportedSyntax, "dotted keys"),
        ("\"listen\" = \"x\"\n", .unsupportedSyntax, "quoted keys"),
        ("= 1\n", .syntax, "expected a key"),
    ])
    func keySyntax(extra: String, code: ConfigError.Code, fragment: String) {
        guard let error = configError(configText(extra)) else { return }
        #expect(error.code == code)
        #expect(error.line == 3)
        #expect(error.description.contains("entitlementd.toml:3: [server]"), "\(error)")
        #expect(error.description.contains(fragment), "\(error)")
    }

    @Test("every code has a distinct stable name")
    func codeNames() {
        let names = ConfigError.Code.allCases.map(\.rawValue)
        #expect(Set(names).count == names.count)
        #expect(ConfigError.Code.typeMismatch.rawValue == "type_mismatch")
    }
}
