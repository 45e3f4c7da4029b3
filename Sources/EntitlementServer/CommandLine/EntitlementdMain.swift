public import RPCCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension EntitlementdCommand {
    /// The whole of a server program: parse the options and load the configuration (or print help or an error and
    /// exit), then serve until a signal. `extraServices` are made once the configuration is loaded; `program` names
    /// the program in the message of a server that cannot start.
    public static func main(_ program: String, extraServices: () -> [any RPCService] = { [] }) -> Never {
        switch prepare(arguments: Array(CommandLine.arguments.dropFirst())) {
        case .exit(let status, let standardOutput, let standardError):
            emit(standardOutput, to: STDOUT_FILENO)
            emit(standardError, to: STDERR_FILENO)
            exit(status)
        case .run(let config):
            do {
                let app = try EntitlementServerApp(config: config, extraServices: extraServices())
                try app.run()
            } catch {
                emit("\(program): cannot start: \(error)\n", to: STDERR_FILENO)
                exit(configErrorStatus)
            }
            exit(0)
        }
    }
}
