import FileAccess
import Foundation
import HTTP2Transport
import PosixIO
import RPCCore
import Testing

@testable import EntitlementServer

@Suite("Server configuration: loading")
struct ServerConfigTests {
    @Test("a file with only [server] listen gets the transport defaults")
    func defaults() throws {
        let (config, directory) = try loadConfig(configText())
        defer { directory.remove() }
        let defaults = HTTP2ServerConfiguration()

        #expect(config.transport.host == "127.0.0.1")
        #expect(config.transport.port == 50051)
        #expect(config.transport.tls == nil)
        #expect(config.transport.eventLoopThreads == defaults.eventLoopThreads)
        #expect(config.transport.maxConcurrentStreams == defaults.maxConcurrentStreams)
        #expect(config.transport.maxHeaderListSize == defaults.maxHeaderListSize)
        #expect(config.transport.maxReceiveMessageSize == defaults.maxReceiveMessageSize)
        #expect(config.transport.initialWindowSize == defaults.initialWindowSize)
        #expect(config.transport.maxBufferedResponseBytes == defaults.maxBufferedResponseBytes)
        #expect(config.transport.streamResetBurst == defaults.streamResetBurst)
        #expect(config.transport.streamResetRatePerSecond == defaults.streamResetRatePerSecond)
        #expect(config.transport.keepaliveInterval == defaults.keepaliveInterval)
        #expect(config.transport.keepaliveTimeout == defaults.keepaliveTimeout)
        #expect(config.transport.minClientPingInterval == defaults.minClientPingInterval)
        #expect(config.transport.shutdownGracePeriod == defaults.shutdownGracePeriod)
        #expect(config.transport.http1MaxHeaderBytes == defaults.http1MaxHeaderBytes)
        #expect(config.transport.http1MaxBodyBytes == defaults.http1MaxBodyBytes)
        #expect(config.transport.idleTimeout == defaults.idleTimeout)
        #expect(config.logLevel == .info)
        #expect(config.tenantsPath == nil)
        let root = try #require(FileSystem.realPath(directory.path))
        #expect(config.databasePath == root + "/data/entitlementd.sqlite")
        #expect(FileSystem.kind(of: root + "/data") == .directory)
    }

    @Test("every key is read into its field")
    func everyKey() throws {
        let text = """
            # A configuration that sets everything.
            [server]
            listen = "0.0.0.0:6000"   # all interfaces
            event_loop_threads = 3
            shutdown_grace_period_seconds = 25
            log_level = "debug"
            idle_timeout_seconds = 45

            [tls]
            certificate = "tls/server.pem"
            private_key = "tls/server.key"

            [limits]
            max_concurrent_streams = 250
            max_header_list_bytes = 32_768
            max_receive_message_bytes = 8_388_608
            initial_window_bytes = 2_097_152
            max_buffered_response_bytes = 131072
            stream_reset_burst = 500
            stream_reset_rate_per_second = 20
            http1_max_header_bytes = 4096
            http1_max_body_bytes = 2048

            [keepalive]
            interval_seconds = 60
            timeout_seconds = 5
            min_client_ping_interval_seconds = 30

            [storage]
            database = "state/db/entitlementd.sqlite"
            tenants = "tenants.toml"
            """
        let (config, directory) = try loadConfig(
            text,
            files: ["tls/server.pem": "cert", "tls/server.key": "key", "tenants.toml": "# none\n"]
        )
        defer { directory.remove() }
        let root = try #require(FileSystem.realPath(directory.path))

        #expect(config.transport.host == "0.0.0.0")
        #expect(config.transport.port == 6000)
        #expect(config.listenAddress == ListenAddress(host: "0.0.0.0", port: 6000))
        #expect(config.transport.eventLoopThreads == 3)
        #expect(config.transport.shutdownGracePeriod == .seconds(25))
        #expect(config.logLevel == .debug)
        #expect(config.transport.idleTimeout == .seconds(45))
        #expect(
            config.transport.tls
                == HTTP2ServerConfiguration.TLS(
                    certificatePath: root + "/tls/server.pem", privateKeyPath: root + "/tls/server.key"
                )
        )
        #expect(config.transport.maxConcurrentStreams == 250)
        #expect(config.transport.maxHeaderListSize == 32768)
        #expect(config.transport.maxReceiveMessageSize == 8_388_608)
        #expect(config.transport.initialWindowSize == 2_097_152)
        #expect(config.transport.maxBufferedResponseBytes == 131_072)
        #expect(config.transport.streamResetBurst == 500)
        #expect(config.transport.streamResetRatePerSecond == 20)
        #expect(config.transport.http1MaxHeaderBytes == 4096)
        #expect(config.transport.http1MaxBodyBytes == 2048)
        #expect(config.transport.keepaliveInterval == .seconds(60))
        #expect(config.transport.keepaliveTimeout == .seconds(5))
        #expect(config.transport.minClientPingInterval == .seconds(30))
        #expect(config.databasePath == root + "/state/db/entitlementd.sqlite")
        #expect(FileSystem.kind(of: root + "/state/db") == .directory)
        #expect(config.tenantsPath == root + "/tenants.toml")
    }

    @Test("relative paths resolve against the configuration file's directory, not the working directory")
    func relativePaths() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("certs/a.pem", "cert")
        try directory.write("certs/a.key", "key")
        let path = try directory.write(
            "conf/nested/server.toml",
            configText(
                """
                [tls]
                certificate = "../../certs/a.pem"
                private_key = "./../../certs/./a.key"
                [storage]
                database = "../../var/lib/x.sqlite"
                """
            )
        )
        let config = try ServerConfig.load(path: path)
        let root = try #require(FileSystem.realPath(directory.path))
        #expect(config.transport.tls?.certificatePath == root + "/certs/a.pem")
        #expect(config.transport.tls?.privateKeyPath == root + "/certs/a.key")
        #expect(config.databasePath == root + "/var/lib/x.sqlite")
        #expect(FileSystem.kind(of: root + "/var/lib") == .directory)
    }

    @Test("session resumption: on by default, its secret file resolved like the others, its period, or off")
    func sessionResumption() throws {
        let tls = "[tls]\ncertificate = \"c.pem\"\nprivate_key = \"k.pem\"\n"
        let files = ["c.pem": "cert", "k.pem": "key", "keys/ticket-secret": "secret"]
        let (defaults, first) = try loadConfig(configText(tls), files: files)
        defer { first.remove() }
        #expect(defaults.transport.tls?.sessionResumption == HTTP2ServerConfiguration.SessionResumption())
        #expect(defaults.transport.tls?.sessionResumption?.secretPath == nil)
        #expect(defaults.transport.tls?.sessionResumption?.rotationSeconds == 43_200)

        let (shared, second) = try loadConfig(
            configText(tls + "session_ticket_secret_file = \"keys/ticket-secret\"\nsession_ticket_rotation_seconds = 3600\n"),
            files: files)
        defer { second.remove() }
        let root = try #require(FileSystem.realPath(second.path))
        #expect(
            shared.transport.tls?.sessionResumption
                == HTTP2ServerConfiguration.SessionResumption(secretPath: root + "/keys/ticket-secret", rotationSeconds: 3600))

        let (off, third) = try loadConfig(configText(tls + "session_resumption = false\n"), files: files)
        defer { third.remove() }
        #expect(off.transport.tls != nil)
        #expect(off.transport.tls?.sessionResumption == nil)
    }

    @Test("absolute paths are kept")
    func absolutePaths() throws {
        let elsewhere = try TemporaryDirectory()
        defer { elsewhere.remove() }
        let certificate = try elsewhere.write("c.pem", "cert")
        let key = try elsewhere.write("k.pem", "key")
        let (config, directory) = try loadConfig(
            configText(
                """
                [tls]
                certificate = "\(certificate)"
                private_key = "\(key)"
                [storage]
                database = "\(elsewhere.path)/db.sqlite"
                """
            )
        )
        defer { directory.remove() }
        #expect(config.transport.tls?.certificatePath == certificate)
        #expect(config.transport.tls?.privateKeyPath == key)
        #expect(config.databasePath == elsewhere.path + "/db.sqlite")
    }

    @Test("IPv6 and host-name listen addresses", arguments: [
        ("[::1]:50051", "::1", 50051),
        ("[::]:0", "::", 0),
        ("[2001:db8::7]:443", "2001:db8::7", 443),
        ("localhost:8080", "localhost", 8080),
        ("10.0.0.1:65535", "10.0.0.1", 65535),
    ])
    func listenForms(text: String, host: String, port: Int) throws {
        let (config, directory) = try loadConfig("[server]\nlisten = \"\(text)\"\n")
        defer { directory.remove() }
        #expect(config.transport.host == host)
        #expect(config.transport.port == port)
        #expect(config.listenAddress.description == text)
    }

    @Test("log levels", arguments: [
        ("debug", Logger.Level.debug), ("info", .info), ("warning", .warning), ("warn", .warning),
        ("ERROR", .error),
    ])
    func logLevels(name: String, level: Logger.Level) throws {
        let (config, directory) = try loadConfig(configText("log_level = \"\(name)\"\n"))
        defer { directory.remove() }
        #expect(config.logLevel == level)
    }

    @Test("bounds are inclusive")
    func boundsInclusive() throws {
        let (low, lowDirectory) = try loadConfig(
            configText("event_loop_threads = 0\n[limits]\nmax_concurrent_streams = 1\n")
        )
        defer { lowDirectory.remove() }
        #expect(low.transport.eventLoopThreads == 0)
        #expect(low.transport.maxConcurrentStreams == 1)
        let (high, highDirectory) = try loadConfig(configText("[limits]\nmax_concurrent_streams = +10_000\n"))
        defer { highDirectory.remove() }
        #expect(high.transport.maxConcurrentStreams == 10000)
    }

    @Test("Config/entitlementd.example.toml documents and accepts every key")
    func exampleFile() throws {
        let examplePath = packageRoot + "/Config/entitlementd.example.toml"
        let bytes = try #require(FileManager.default.contents(atPath: examplePath))
        let text = try #require(String(data: bytes, encoding: .utf8))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let config = try ServerConfig.load(contents: text, fileName: examplePath, directory: directory.path)
        #expect(config.transport.port == 50051)

        // Every key of the schema appears in the example, set or commented out, with a comment above it.
        let document = ConfigDocument.parse(uncommentingKeys(text), file: examplePath)
        #expect(document.problems.isEmpty, "\(document.problems)")
        let present = Set(document.entries.map { "\($0.section).\($0.key)" })
        for (section, keys) in configSchema {
            for key in keys { #expect(present.contains("\(section).\(key)"), "missing \(section).\(key)") }
        }
    }

    @Test("Config/demo.toml listens on 127.0.0.1:50051 in plaintext with a database under data/")
    func demoFile() throws {
        let demoPath = packageRoot + "/Config/demo.toml"
        let bytes = try #require(FileManager.default.contents(atPath: demoPath))
        let text = try #require(String(data: bytes, encoding: .utf8))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // The demo names its tenants file relative to itself: give the copy one too.
        try FileManager.default.createDirectory(atPath: directory.path + "/Config", withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: packageRoot + "/Config/tenants.demo.json", toPath: directory.path + "/Config/tenants.demo.json")
        // ...and its demo page's and admin console's directories.
        try FileManager.default.createDirectory(atPath: directory.path + "/Web/demo", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory.path + "/Web/console", withIntermediateDirectories: true)
        let config = try ServerConfig.load(contents: text, fileName: demoPath, directory: directory.path + "/Config")
        #expect(config.demoPageDirectory == directory.path + "/Web/demo")
        #expect(config.adminConsoleDirectory == directory.path + "/Web/console")
        #expect(config.tenantsPath == directory.path + "/Config/tenants.demo.json")
        #expect(config.listenAddress == ListenAddress(host: "127.0.0.1", port: 50051))
        #expect(config.transport.tls == nil)
        #expect(config.databasePath.hasPrefix(directory.path + "/data/"))
    }

    /// Turns `# key = value` lines (documented but left at their default) into live ones.
    private func uncommentingKeys(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            let trimmed = line.drop(while: { $0 == " " })
            if trimmed.hasPrefix("# "), let first = trimmed.dropFirst(2).first, first.isLowercase,
                trimmed.contains(" = ")
            {
                return String(trimmed.dropFirst(2))
            }
            return String(line)
        }.joined(separator: "\n")
    }
}
