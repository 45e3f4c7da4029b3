import HTTP2Transport

/// `entctl`'s global options and the subcommand with its arguments.
struct EntctlOptions {
    var address = ListenAddress(host: "127.0.0.1", port: 50051)
    var tls = false
    var caFile: String?
    var serverName: String?
    var apiKey: String?
    var timeout: Duration = .seconds(10)
    var command: String?
    var arguments: [String] = []

    static let usage = """
        usage: entctl [options] <command> [arguments]

        commands:
          health [SERVICE]     check grpc.health.v1.Health ("" = the whole server); exits 0 only when SERVING

        options:
          --addr HOST:PORT     server address (default 127.0.0.1:50051)
          --tls                connect with TLS (verifying the server's certificate)
          --ca FILE            PEM file of trusted certificates for --tls (default: the system store)
          --server-name NAME   name to verify and send as SNI with --tls (default: the host)
          --key KEY            API key, sent as "authorization: Bearer KEY"
          --timeout SECONDS    deadline of each call (default 10)
          --help               show this help

        """

    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    /// Parses everything after the program name; nil means `--help`.
    static func parse(_ arguments: [String]) throws(UsageError) -> EntctlOptions? {
        var options = EntctlOptions()
        var remaining = arguments[...]
        func value(for flag: String) throws(UsageError) -> String {
            guard let value = remaining.popFirst(), !value.hasPrefix("--") else {
                throw UsageError(description: "option \(flag) needs a value")
            }
            return value
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "--help", "-h": return nil
            case "--addr":
                let text = try value(for: argument)
                switch ListenAddress.parse(text) {
                case .success(let address): options.address = address
                case .failure(let error): throw UsageError(description: "invalid --addr '\(text)': \(error)")
                }
            case "--tls": options.tls = true
            case "--ca": options.caFile = try value(for: argument)
            case "--server-name": options.serverName = try value(for: argument)
            case "--key": options.apiKey = try value(for: argument)
            case "--timeout":
                let text = try value(for: argument)
                guard let seconds = Double(text), seconds > 0, seconds <= 86_400 else {
                    throw UsageError(description: "invalid --timeout '\(text)': expected seconds between 0 and 86400")
                }
                options.timeout = .milliseconds(Int64(seconds * 1000))
            default:
                guard !argument.hasPrefix("--") else { throw UsageError(description: "unknown option '\(argument)'") }
                options.command = argument
                options.arguments = Array(remaining)
                return options
            }
        }
        throw UsageError(description: "missing command")
    }
}
