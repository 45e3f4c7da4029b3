import EntitlementClient
import EntitlementsProto

/// `entctl appstore ...`: the App Store Server API through the server (a secret key).
extension Entctl {
    /// `appstore reconcile ...`
    func appStore() async throws -> Int32 {
        switch arguments.subcommand() {
        case let subcommand? where subcommand.command == "appstore reconcile": return try await reconcile(subcommand)
        default: throw UsageError(description: "appstore needs a command: reconcile")
        }
    }

    /// `appstore reconcile [--since T] [--until T] [--transaction-id ID]... [--only-failures]`
    private func reconcile(_ subcommand: CommandArguments) async throws -> Int32 {
        try subcommand.check(positionals: [], options: ["--since", "--until", "--transaction-id", "--only-failures"])
        var request = ReconcileAppStoreRequest(
            transactionIDs: subcommand.values("--transaction-id"), onlyFailures: subcommand.flag("--only-failures"))
        (request.startTime, request.endTime) = try Self.timeRange(subcommand)
        let response = try await connect(.secretKey).reconcileAppStore(request)
        printer.print(response, human: response.environments.flatMap(HumanOutput.reconciliation))
        return 0
    }
}
