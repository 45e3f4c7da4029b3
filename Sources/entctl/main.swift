import EntitlementdVersion
import HTTP1
import RPCCore

#if canImport(Glibc)
import Glibc
#endif

let options: EntctlOptions
do {
    switch try EntctlOptions.parse(Array(CommandLine.arguments.dropFirst())) {
    case .help(let command):
        Output.line(String((command?.page ?? CommandHelp.programPage).dropLast()))
        exit(0)
    case .version:
        Output.line("entctl \(EntitlementdVersion.string)")
        exit(0)
    case .run(let parsed):
        options = parsed
    }
} catch {
    Output.usageError(error)
}

let status: Int32
do {
    status = try await Entctl(options: options).run()
} catch var error as EntctlOptions.UsageError {
    if error.help == nil { error.help = CommandHelp.of(command: options.command, positionals: options.positionals) }
    Output.usageError(error)
} catch let error as RPCError {
    Output.fail("entctl: " + ClientErrorHints.message(for: error, options: options), status: 1)
} catch let failure as ClientConnectionFailure {
    Output.fail("entctl: " + ClientErrorHints.message(for: failure), status: 1)
} catch {
    Output.fail("entctl: \(error)", status: 1)
}
exit(status)
