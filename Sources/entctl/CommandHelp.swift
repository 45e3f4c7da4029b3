import BoundedText

/// What `entctl` says about each command: the one-line usage a usage error prints, the page `entctl CMD --help`
/// prints, and the summary `entctl --help` lists. One catalog, so the three never disagree.
struct CommandHelp {
    /// `grant`, `dev sign-transaction`.
    let name: String
    /// What follows the name in the usage line; commands with many options end it in `[options]`.
    let arguments: String
    /// One line for `entctl --help`.
    let summary: String
    /// More about the command, for its own help page.
    var details: [String] = []
    /// The command's own options, as `--name VALUE` and what they do.
    var options: [(String, String)] = []

    /// `usage: entctl grant APP_USER_ID ...`: what a usage error shows.
    var usageLine: String { "usage: entctl \(name) \(arguments)" }

    /// `entctl grant --help`.
    var page: String {
        var lines = [usageLine, "", summary.prefix(1).uppercased() + summary.dropFirst() + "."]
        lines += details
        if !options.isEmpty {
            lines += ["", "options:"] + Self.columns(options)
        }
        if let group = Self.groups.first(where: { $0.commands.contains { $0.name == name } }), let note = group.keyNote {
            lines += ["", note]
        }
        lines += ["", "Global options (--addr, --key, --json, --timeout, --tls, --ca, --server-name): see 'entctl --help'."]
        return lines.joined(separator: "\n") + "\n"
    }

    /// `entctl --help`: every command with its summary, then the global options.
    static var programPage: String {
        var lines = [programUsageLine, "'entctl COMMAND --help' shows a command's options."]
        for group in groups {
            lines += ["", group.title + ":"]
            for command in group.commands {
                let call = "\(command.name) \(command.arguments)"
                lines += call.count <= 19
                    ? ["  " + call + String(repeating: " ", count: 21 - call.count) + command.summary]
                    : ["  " + call, String(repeating: " ", count: 23) + command.summary]
            }
        }
        lines += ["", "options (before or after the command):"] + columns(globalOptions, width: 19)
        lines += ["", "Errors print \"entctl: CODE: message\" and exit 1; usage errors exit 2."]
        return lines.joined(separator: "\n") + "\n"
    }

    /// The usage line of a command line that names no command.
    static let programUsageLine = "usage: entctl [options] <command> [arguments]"

    static let globalOptions = [
        ("--addr HOST:PORT", "server address (default 127.0.0.1:50051)"),
        ("--key KEY", "API key, sent as \"authorization: Bearer KEY\" (default $ENTCTL_KEY; without either, the"),
        ("", "command's demo key, to a loopback address only)"),
        ("--json", "print one JSON object per response or event (proto3 JSON field names)"),
        ("--tls", "connect with TLS (verifying the server's certificate)"),
        ("--ca FILE", "PEM file of trusted certificates for --tls (default: the system store)"),
        ("--server-name NAME", "name to verify and send as SNI with --tls (default: the host)"),
        ("--user-token JWT", "the user token app calls carry for a tenant that requires them (entctl dev user-token)"),
        ("--timeout SECONDS", "deadline of each call (default 10; watch has none)"),
        ("--help", "show this help, or after a command that command's"),
        ("--version", "print the version"),
    ]

    /// Options in two columns, the descriptions aligned.
    static func columns(_ rows: [(String, String)], width fixed: Int? = nil) -> [String] {
        let width = fixed ?? min(24, rows.map(\.0.count).max() ?? 0)
        return rows.map { name, text in
            name.count > width
                ? "  \(name)\n  \(String(repeating: " ", count: width))  \(text)"
                : "  \(name)\(String(repeating: " ", count: width - name.count))  \(text)"
        }
    }

    /// Commands whose first word names a group of subcommands (`dev sign-transaction`, `webhooks test`).
    static let commandsWithSubcommands: Set<String> = ["dev", "webhooks", "appstore", "offers"]

    /// The help for `words` (a command, or a group and its subcommand); nil for the whole program.
    static func topic(_ words: [String]) throws(EntctlOptions.UsageError) -> CommandHelp? {
        guard let first = words.first else { return nil }
        if commandsWithSubcommands.contains(first), words.count > 1 {
            guard let help = named("\(first) \(words[1])") else { throw unknownCommand("\(first) \(words[1])") }
            return help
        }
        guard let help = named(first) else { throw unknownCommand(first) }
        return help
    }

    /// `unknown command 'idnetify' (did you mean 'identify'?)`: the suggestion is the closest command of the same
    /// depth (`webhooks lsit` is compared with the other `webhooks` commands).
    static func unknownCommand(_ name: String) -> EntctlOptions.UsageError {
        let words = name.split(separator: " ")
        let candidates = words.count > 1
            ? allNames.filter { $0.hasPrefix(words[0] + " ") }
            : Array(Set(allNames.map { String($0.prefix { $0 != " " }) }))
        let guess = closestMatch(to: name, in: candidates.sorted()).map { " (did you mean '\($0)'?)" } ?? ""
        return EntctlOptions.UsageError(description: "unknown command '\(name)'" + guess)
    }

    /// Every command's name, subcommands as `group subcommand`.
    static var allNames: [String] { groups.flatMap(\.commands).map(\.name) }

    /// The help of the command a command line names, as far as it names one (`dev frobnicate` is `dev`).
    static func of(command: String?, positionals: [String]) -> CommandHelp? {
        guard let command else { return nil }
        if commandsWithSubcommands.contains(command), let sub = positionals.first, let help = named("\(command) \(sub)") {
            return help
        }
        return named(command)
    }

    static func named(_ name: String) -> CommandHelp? {
        name == dev.name ? dev : groups.lazy.flatMap(\.commands).first { $0.name == name }
    }
}

/// Commands listed together in `entctl --help`, with what they have in common.
struct CommandGroup {
    let title: String
    /// Which key the group's commands send, for their help pages.
    let keyNote: String?
    let commands: [CommandHelp]
}
