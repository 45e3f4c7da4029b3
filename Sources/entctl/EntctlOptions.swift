import CivilCalendar
import PosixIO

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
    /// `--user-token`: sent as the `entitlements-user-token` metadata, for tenants that require user tokens.
    var userToken: String?
    var timeout: Duration = .seconds(10)
    var json = false
    var command: String?
    var positionals: [String] = []
    /// The command's own options by name (`--reason`), each with its values in the order given: one, except for the
    /// ``repeatableOptions``; flags without a value have the one value "".
    var commandOptions: [String: [String]] = [:]

    static let demoPublicKey = "pk_demo_public_key_for_local_testing_only"
    static let demoSecretKey = "sk_demo_secret_key_for_local_testing_only"

    struct UsageError: Error, CustomStringConvertible {
        let description: String
        /// The command whose usage line the error is printed with; nil for the program's.
        var help: CommandHelp? = nil
    }

    /// What a command line asks for.
    enum Invocation {
        /// `--help`, `-h` or `help`: the help of a command, or of the whole program (nil).
        case help(CommandHelp?)
        case version
        case run(EntctlOptions)
    }

    /// The global options that take a value.
    static let globalValueOptions: Set<String> = ["--addr", "--key", "--user-token", "--ca", "--server-name", "--timeout"]

    /// Command options that take a value, and those that do not; which command accepts which is checked by the
    /// command itself (``CommandArguments``).
    static let valueOptions: Set<String> = Set([
        "--anonymous-id", "--after-version", "--duration", "--expires-at", "--reason", "--idempotency-key",
        "--page-size", "--page-token", "--play", "--endpoint", "--user", "--state", "--since", "--until",
        "--entitlement", "--store", "--product", "--changed-since", "--history",
        "--days", "--reason-code", "--request-id", "--delivery", "--consumed", "--refund-preference", "--wait",
        "--from", "--to", "--interval", "--group-by", "--country", "--offer-kind", "--environment", "--unset", "--output", "--confirm",
        "--offer", "--app-transaction-id", "--jwks",
    ]).union(devValueOptions)
    static let flagOptions: Set<String> = Set(["--all", "--only-failures", "--consented", "--sample", "--csv", "--app"])
        .union(devFlagOptions)
    /// Value options that may be given more than once (`restore --play A:1 --play B:2`); any other is a usage error
    /// the second time.
    static let repeatableOptions: Set<String> = ["--play", "--history", "--transaction-id", "--group-by", "--unset"]

    /// Parses everything after the program name. `--help` (or `-h`, or the `help` command) wins over everything
    /// else and asks for the help of the command it follows, then `--version`; a usage error carries the help of
    /// the command it is about.
    static func parse(_ arguments: [String], environment key: String? = environmentKey()) throws(UsageError)
        -> Invocation
    {
        let flags = arguments.prefix { $0 != "--" }
        let words = commandWords(arguments)
        if flags.contains("--help") || flags.contains("-h") || words.first == "help" {
            return .help(try CommandHelp.topic(words.first == "help" ? Array(words.dropFirst()) : words))
        }
        if flags.contains("--version") { return .version }
        var options = EntctlOptions()
        options.explicitKey = key
        do {
            try read(arguments, into: &options)
        } catch {
            var error = error
            error.help = CommandHelp.of(command: options.command, positionals: options.positionals)
            throw error
        }
        return .run(options)
    }

    /// The words that are not options (the command, then its arguments), skipping option values: enough to tell
    /// which help to print before anything is checked.
    static func commandWords(_ arguments: [String]) -> [String] {
        var words: [String] = []
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            if argument == "--" { return words + remaining }
            if argument.hasPrefix("-") {
                if globalValueOptions.contains(argument) || valueOptions.contains(argument) { _ = remaining.popFirst() }
                continue
            }
            words.append(argument)
        }
        return words
    }

    /// The strict parse. On a usage error `options` holds what was read before it, to name the command.
    private static func read(_ arguments: [String], into options: inout EntctlOptions) throws(UsageError) {
        var remaining = arguments[...]
        var optionsEnded = false
        while let argument = remaining.popFirst() {
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
            case "--user-token":
                let text = try value()
                guard !text.isEmpty else { throw UsageError(description: "option --user-token needs a non-empty value") }
                options.userToken = text
            case "--timeout":
                let text = try value()
                guard let seconds = Double(text), seconds > 0, seconds <= Double(Seconds.perDay) else {
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
        guard options.command != nil else {
            // Each command's first word, in the order `entctl --help` lists them: what there is, at a glance.
            var names: [String] = []
            for command in CommandHelp.groups.flatMap(\.commands) {
                let name = String(command.name.prefix { $0 != " " })
                if !names.contains(name) { names.append(name) }
            }
            throw UsageError(description: "missing command: one of " + names.joined(separator: ", "))
        }
        // Without --tls they would be ignored, and the connection would go out in cleartext unverified.
        for (given, name) in [(options.caFile, "--ca"), (options.serverName, "--server-name")] where given != nil {
            if !options.tls { throw UsageError(description: "\(name) applies to TLS connections only: add --tls") }
        }
    }

    private mutating func addCommandOption(_ name: String, _ value: String) throws(UsageError) {
        guard commandOptions[name] == nil || Self.repeatableOptions.contains(name) else {
            throw UsageError(description: "option \(name) given more than once")
        }
        commandOptions[name, default: []].append(value)
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

    /// The key to send: `--key`, else `ENTCTL_KEY`, else the demo key of the command's service, with a note on
    /// standard error. The demo keys go to a loopback address only: they are public knowledge, so a server elsewhere
    /// must not be sent them by accident, and without a key of its own the call cannot be meant for the demo.
    func apiKey(for kind: KeyKind) throws(UsageError) -> String? {
        if let explicitKey { return explicitKey }
        let (key, name): (String, String)
        switch kind {
        case .none: return nil
        case .publicKey: (key, name) = (Self.demoPublicKey, "public")
        case .secretKey: (key, name) = (Self.demoSecretKey, "secret")
        }
        guard address.isLoopback else {
            throw UsageError(
                description: "no API key for \(address): pass --key KEY or set ENTCTL_KEY (the demo keys are sent to a "
                    + "loopback address only)")
        }
        Output.note("using the demo \(name) key (\(key)) because no --key/ENTCTL_KEY was given")
        return key
    }
}

/// One command's positional arguments and options, checked against what the command accepts.
struct CommandArguments {
    let command: String
    let positionals: [String]
    private let options: [String: [String]]

    init(_ options: EntctlOptions) {
        command = options.command ?? ""
        positionals = options.positionals
        self.options = options.commandOptions
    }

    private init(command: String, positionals: [String], options: [String: [String]]) {
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

    /// The value of an option given once (the first of a repeatable one's).
    func value(_ name: String) -> String? { options[name]?.first }

    /// Every value of a repeatable option, in the order given; empty when it is not given.
    func values(_ name: String) -> [String] { options[name] ?? [] }

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
        guard let text = value(name) else { return nil }
        guard let value = Value(text), value >= minimum else {
            throw UsageError(
                description: "invalid \(name) '\(text)': expected an integer from \(minimum) to \(Value.max)")
        }
        return value
    }
}
