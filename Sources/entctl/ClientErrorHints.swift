import HTTP1
import RPCCore

/// The likely fix for a failed call, in parentheses after its message: a new user points entctl at the wrong place
/// or with the wrong key far more often than a server fails, and the bare status does not say which.
enum ClientErrorHints {
    /// `CODE: message (hint)`, each request field the message names followed by the option that sets it.
    static func message(for error: RPCError, options: EntctlOptions) -> String {
        let fix = (error.cause as? ClientConnectionFailure).flatMap { hint(for: $0.kind) }
            ?? (error.code == .unauthenticated ? unauthenticatedHint(options) : nil)
        let command = CommandHelp.of(command: options.command, positionals: options.positionals)?.name ?? ""
        let message = RequestFieldFlags.annotate(error.message, command: command)
        return "\(error.code): \(message)" + (fix.map { " (\($0))" } ?? "")
    }

    /// A connection that failed outside a gRPC call (the HTTP/1.1 posts of `dev notify` and `dev play-notify`).
    static func message(for failure: ClientConnectionFailure) -> String {
        failure.description + (hint(for: failure.kind).map { " (\($0))" } ?? "")
    }

    static func hint(for kind: ClientConnectionFailure.Kind) -> String? {
        switch kind {
        case .refused: "is the server running?"
        case .unresolvable: "check the host in --addr"
        case .answeredWithTLS: "the server expects TLS: add --tls"
        case .closedDuringPreface: "if the server uses TLS, add --tls"
        case .tlsHandshake: "check --ca and --server-name, or leave out --tls if the server is cleartext"
        case .unreachable, .closed: nil
        }
    }

    private static func unauthenticatedHint(_ options: EntctlOptions) -> String {
        options.explicitKey == nil
            ? "this server does not know the demo key: pass a key of its tenants with --key KEY or ENTCTL_KEY"
            : "check --key or ENTCTL_KEY"
    }
}
