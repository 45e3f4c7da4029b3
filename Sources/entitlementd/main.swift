import EntitlementServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Parse the options and load the configuration (or print help / an error and exit), then serve until a signal.
switch EntitlementdCommand.prepare(arguments: Array(CommandLine.arguments.dropFirst())) {
case .exit(let status, let standardOutput, let standardError):
    EntitlementdCommand.emit(standardOutput, to: STDOUT_FILENO)
    EntitlementdCommand.emit(standardError, to: STDERR_FILENO)
    exit(status)
case .run(let config):
    do {
        let app = try EntitlementServerApp(config: config)
        try app.run()
    } catch {
        EntitlementdCommand.emit("entitlementd: cannot start: \(error)\n", to: STDERR_FILENO)
        exit(EntitlementdCommand.configErrorStatus)
    }
    exit(0)
}
