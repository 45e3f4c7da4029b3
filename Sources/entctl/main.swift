import RPCCore

#if canImport(Glibc)
import Glibc
#endif

let options: EntctlOptions
do {
    guard let parsed = try EntctlOptions.parse(Array(CommandLine.arguments.dropFirst())) else {
        Output.lines([String(EntctlOptions.usage.dropLast())])
        exit(0)
    }
    options = parsed
} catch {
    Output.usageError(error.description)
}

let status: Int32
do {
    status = try await Entctl(options: options).run()
} catch let error as EntctlOptions.UsageError {
    Output.usageError(error.description)
} catch let error as RPCError {
    Output.fail("entctl: \(error.code): \(error.message)", status: 1)
} catch {
    Output.fail("entctl: \(error)", status: 1)
}
exit(status)
