import EntitlementClient
import EntitlementsProto
import FileAccess
#if canImport(Glibc)
import Glibc
#endif

/// The commands on a customer's personal data as a whole: export, and the audit log.
extension Entctl {
    /// `export APP_USER_ID [--output FILE]`: the customer's export document, to standard output or a new file only
    /// its owner may read.
    func export() async throws -> Int32 {
        try arguments.check(positionals: ["APP_USER_ID"], options: ["--output"])
        let appUserID = try arguments.positional(0, "APP_USER_ID")
        let client = try connect(.secretKey)
        var descriptor = STDOUT_FILENO
        if let path = arguments.value("--output") {
            descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
            guard descriptor >= 0 else {
                throw UsageError(description: "cannot create --output '\(path)': \(FileSystem.errnoDescription())")
            }
        }
        defer { if descriptor != STDOUT_FILENO { close(descriptor) } }
        for try await chunk in client.exportCustomer(appUserID: appUserID) {
            Output.write(chunk.data, to: descriptor)
        }
        if descriptor == STDOUT_FILENO { Output.write(Array("\n".utf8)) }
        return 0
    }

    /// `delete APP_USER_ID --confirm APP_USER_ID`: erases the customer; the ID is given twice on purpose.
    func delete() async throws -> Int32 {
        try arguments.check(positionals: ["APP_USER_ID"], options: ["--confirm"])
        let appUserID = try arguments.positional(0, "APP_USER_ID")
        guard let confirmation = arguments.value("--confirm") else {
            throw UsageError(description: "delete needs --confirm APP_USER_ID, the same ID again: an erasure cannot be undone")
        }
        let response = try await connect(.secretKey).deleteCustomer(appUserID: appUserID, confirmation: confirmation)
        printer.print(response, human: HumanOutput.deletedCustomer(response))
        return 0
    }

    /// `audit [--page-size N] [--page-token T] [--all]`: the tenant's audit log, newest first.
    func audit() async throws -> Int32 {
        try arguments.check(positionals: [], options: ["--page-size", "--page-token", "--all"])
        let pageSize = try arguments.integer("--page-size", Int32.self, minimum: 1) ?? 0
        var pageToken = arguments.value("--page-token") ?? ""
        let client = try connect(.secretKey)
        var printedAny = false
        repeat {
            let page = try await client.listAuditEvents(pageSize: pageSize, pageToken: pageToken)
            printer.print(page, human: page.events.map(HumanOutput.auditEvent))
            printedAny = printedAny || !page.events.isEmpty
            pageToken = page.nextPageToken
        } while arguments.flag("--all") && !pageToken.isEmpty
        if !printer.json {
            if !printedAny { Output.line("no audit events") }
            if !pageToken.isEmpty { Output.line("more: --page-token \(pageToken)") }
        }
        return 0
    }
}
