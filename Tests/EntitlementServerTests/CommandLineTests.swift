import EntitlementdVersion
import HTTP2Transport
import PosixIO
import RPCCore
import Testing

@testable import EntitlementServer

@Suite("entitlementd command line")
struct CommandLineTests {
    @Test("--help lists every option and exits 0", arguments: [["--help"], ["-h"], ["--config", "x.toml", "--help"]])
    func help(arguments: [String]) throws {
        #expect(try EntitlementdOptions.parse(arguments) == .help)
        guard case .exit(let status, let output, let errors) = EntitlementdCommand.prepare(arguments: arguments) else {
            Issue.record("--help should not run the server")
            return
        }
        #expect(status == 0)
        #expect(errors.isEmpty)
        for option in ["--config FILE", "--listen HOST:PORT", "--log-level LEVEL", "--help"] {
            #expect(output.contains(option), "usage should mention \(option)")
        }
    }

    @Test("--version prints the shared version string and exits 0", arguments: [["--version"], ["--config", "x.toml", "--version"]])
    func version(arguments: [String]) throws {
        #expect(try EntitlementdOptions.parse(arguments) == .version)
        guard case .exit(let status, let output, let errors) = EntitlementdCommand.prepare(arguments: arguments) else {
            Issue.record("--version should not run the server")
            return
        }
        #expect(status == 0)
        #expect(errors.isEmpty)
        #expect(output == "entitlementd \(EntitlementdVersion.string)\n")
        // --help wins, as documented.
        #expect(try EntitlementdOptions.parse(["--version", "--help"]) == .help)
    }

    @Test("all options, in both spellings")
    func allOptions() throws {
        let expected = EntitlementdOptions(
            configPath: "c.toml", listen: ListenAddress(host: "::1", port: 0), logLevel: .warning
        )
        #expect(
            try EntitlementdOptions.parse(["--config", "c.toml", "--listen", "[::1]:0", "--log-level", "warning"])
                == .run(expected)
        )
        #expect(
            try EntitlementdOptions.parse(["--log-level=warning", "--listen=[::1]:0", "--config=c.toml"])
                == .run(expected)
        )
        #expect(try EntitlementdOptions.parse(["--config", "c.toml"]) == .run(EntitlementdOptions(configPath: "c.toml")))
    }

    @Test("--listen and --log-level override the file")
    func overrides() throws {
        let (_, directory) = try loadConfig(configText("log_level = \"error\"\n"))
        defer { directory.remove() }
        let path = directory.path + "/entitlementd.toml"

        guard case .run(let plain) = EntitlementdCommand.prepare(arguments: ["--config", path]) else {
            Issue.record("expected to run")
            return
        }
        #expect(plain.listenAddress == ListenAddress(host: "127.0.0.1", port: 50051))
        #expect(plain.logLevel == .error)

        let arguments = ["--config", path, "--listen", "127.0.0.1:0", "--log-level", "debug"]
        guard case .run(let config) = EntitlementdCommand.prepare(arguments: arguments) else {
            Issue.record("expected to run")
            return
        }
        #expect(config.transport.host == "127.0.0.1")
        #expect(config.transport.port == 0)
        #expect(config.logLevel == .debug)
    }

    @Test("usage errors exit 2 with the message and one line pointing at --help on standard error", arguments: [
        (["--config", "c.toml", "--verbose"], "unknown option '--verbose'"),
        (["--config"], "option --config needs a value"),
        (["--config", "--listen", "127.0.0.1:1"], "option --config needs a value"),
        (["--listen", "127.0.0.1:1"], "missing required option --config"),
        ([], "missing required option --config"),
        (["--config", "a", "--config", "b"], "more than once"),
        (["--config", "c.toml", "extra"], "unexpected argument 'extra'"),
        (["--config", "c.toml", "--listen", "::1:80"], "invalid --listen value"),
        (["--config", "c.toml", "--log-level", "loud"], "invalid --log-level value 'loud'"),
        (["--config="], "non-empty value"),
        // What a newcomer typed (issue 36), with what they most likely meant.
        (["--confg", "Config/demo.toml"], "unknown option '--confg' (did you mean --config?)"),
        (["--config", "c.toml", "--listen", "50051"], "(a port alone; did you mean 127.0.0.1:50051, this machine only,"),
        (["--config", "c.toml", "--log-level", "verbose"], "expected debug, info, warning, error\n"),
        (["--config", "c.toml", "--log-level", "warnig"], "expected debug, info, warning, error (did you mean warning?)"),
        (["chek-config", "--config", "c.toml"], "unexpected argument 'chek-config' (did you mean check-config?)"),
    ])
    func usageErrors(arguments: [String], message: String) {
        #expect(throws: UsageError.self) { try EntitlementdOptions.parse(arguments) }
        guard case .exit(let status, let output, let errors) = EntitlementdCommand.prepare(arguments: arguments) else {
            Issue.record("a usage error should not run the server")
            return
        }
        #expect(status == 2)
        #expect(output.isEmpty)
        #expect(errors.contains(message), "\(errors)")
        // The error, then where the options are: not the whole usage, which would scroll the error away.
        let lines = errors.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3 && lines[0].hasPrefix("entitlementd: ") && lines[2].isEmpty, "\(errors)")
        #expect(lines.dropFirst().first == "Run 'entitlementd --help' for the options and commands.")
    }

    @Test("a bad configuration exits 1 with the error's description on standard error")
    func badConfig() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write("bad.toml", "[server]\nlisten = \"127.0.0.1:50051\"\nlistn = 1\n")
        guard case .exit(let status, let output, let errors) = EntitlementdCommand.prepare(arguments: ["--config", path])
        else {
            Issue.record("a bad configuration should not run the server")
            return
        }
        #expect(status == 1)
        #expect(output.isEmpty)
        #expect(errors.contains("\(path):3: [server] listn: unknown key"), "\(errors)")
        #expect(!errors.contains("USAGE"))
    }

    @Test("a missing configuration file exits 1")
    func missingConfig() {
        guard case .exit(let status, _, let errors) = EntitlementdCommand.prepare(arguments: ["--config", "/nonexistent/x.toml"])
        else {
            Issue.record("expected an exit")
            return
        }
        #expect(status == 1)
        #expect(errors.contains("/nonexistent/x.toml: cannot read the configuration file"))
    }
}
