import BoundedText
import EntitlementClient
import EntitlementsProto
import Foundation
import ProtobufWire

/// `entctl appstore ...`: the App Store Server API through the server (a secret key).
extension Entctl {
    /// `appstore reconcile|lookup|extend|consumption|test-notification|check ...`
    func appStore() async throws -> Int32 {
        guard let subcommand = arguments.subcommand() else {
            throw UsageError(description: "appstore needs a command: \(Self.appStoreCommands)")
        }
        switch subcommand.command {
        case "appstore reconcile": return try await reconcile(subcommand)
        case "appstore lookup": return try await lookUpOrder(subcommand)
        case "appstore extend": return try await extend(subcommand)
        case "appstore consumption": return try await consumption(subcommand)
        case "appstore test-notification": return try await testNotification(subcommand)
        case "appstore check": return try await check(subcommand)
        default: throw CommandHelp.unknownCommand(subcommand.command)
        }
    }

    static let appStoreCommands = "reconcile, lookup, extend, consumption, test-notification or check"

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

    /// `appstore lookup ORDER_ID [--reason TEXT]`: exit 1 when Apple does not know the order ID.
    private func lookUpOrder(_ subcommand: CommandArguments) async throws -> Int32 {
        try subcommand.check(positionals: ["ORDER_ID"], options: ["--reason"])
        var request = LookUpOrderRequest()
        request.orderID = try subcommand.positional(0, "ORDER_ID")
        request.reason = subcommand.value("--reason") ?? ""
        let response = try await connect(.secretKey).lookUpOrder(request)
        printer.print(
            response,
            human: response.found
                ? ["order \(request.orderID): " + counted(response.transactions.count, "transaction")]
                    + response.transactions.map { "  " + HumanOutput.transactionLine($0) }
                : ["Apple knows no order \(request.orderID)"])
        return response.found ? 0 : 1
    }

    /// `appstore extend ORIGINAL_TRANSACTION_ID --days N [--reason-code CODE] [--request-id ID] [--reason TEXT]`
    private func extend(_ subcommand: CommandArguments) async throws -> Int32 {
        try subcommand.check(
            positionals: ["ORIGINAL_TRANSACTION_ID"], options: ["--days", "--reason-code", "--request-id", "--reason"])
        var request = ExtendSubscriptionRequest()
        request.originalTransactionID = try subcommand.positional(0, "ORIGINAL_TRANSACTION_ID")
        guard let days = try subcommand.integer("--days", Int32.self, minimum: 1) else {
            throw UsageError(description: "appstore extend needs --days N (1 to 90)")
        }
        request.extendByDays = days
        if let code = subcommand.value("--reason-code") {
            guard let index = Self.extensionReasons.firstIndex(of: code) else {
                throw UsageError(
                    description: "invalid --reason-code '\(code)': expected \(Self.extensionReasons.joined(separator: ", "))")
            }
            request.reasonCode = .init(rawValue: Int32(index))
        }
        request.requestIdentifier = subcommand.value("--request-id") ?? ""
        request.reason = subcommand.value("--reason") ?? ""
        let response = try await connect(.secretKey).extendSubscription(request)
        printer.print(
            response,
            human: ["extended until \(response.expiresAt.map(HumanOutput.time) ?? "?") (request \(response.requestIdentifier))"]
                + HumanOutput.customerStatus(response.customer))
        return 0
    }

    /// Apple's extension reason codes, in order (0...3).
    static let extensionReasons = ["undeclared", "customer-satisfaction", "other", "service-issue"]
    static let deliveryStatuses = [
        "delivered", "undelivered-quality-issue", "undelivered-wrong-item", "undelivered-server-outage",
        "undelivered-other",
    ]
    static let refundPreferences = ["decline", "grant-full", "grant-prorated"]

    /// `appstore consumption TRANSACTION_ID --consented [--delivery STATUS] [--sample] [--consumed PERCENT]
    /// [--refund-preference P] [--reason TEXT]`
    private func consumption(_ subcommand: CommandArguments) async throws -> Int32 {
        try subcommand.check(
            positionals: ["TRANSACTION_ID"],
            options: ["--consented", "--delivery", "--sample", "--consumed", "--refund-preference", "--reason"])
        func choice(_ option: String, _ names: [String]) throws(UsageError) -> Int32 {
            guard let text = subcommand.value(option) else { return 0 }
            guard let index = names.firstIndex(of: text) else {
                throw UsageError(description: "invalid \(option) '\(text)': expected \(names.joined(separator: ", "))")
            }
            return Int32(index + 1)
        }
        var request = SendConsumptionInfoRequest()
        request.transactionID = try subcommand.positional(0, "TRANSACTION_ID")
        request.customerConsented = subcommand.flag("--consented")
        request.deliveryStatus = .init(rawValue: try choice("--delivery", Self.deliveryStatuses))
        request.sampleContentProvided = subcommand.flag("--sample")
        request.refundPreference = .init(rawValue: try choice("--refund-preference", Self.refundPreferences))
        if let text = subcommand.value("--consumed") {
            guard let percent = Double(text), (0...100).contains(percent) else {
                throw UsageError(description: "invalid --consumed '\(text)': expected a percentage from 0 to 100")
            }
            request.consumptionPercentage = Int32((percent * 1000).rounded())
        }
        request.reason = subcommand.value("--reason") ?? ""
        let response = try await connect(.secretKey).sendConsumptionInfo(request)
        printer.print(
            response,
            human: ["sent: \(response.deliveryStatus.name)"
                + (response.ownerAppUserID.isEmpty ? "" : ", owner \(response.ownerAppUserID)")])
        return 0
    }

    /// `appstore test-notification [--environment ENV] [--wait SECONDS]`: exit 0 once the TEST notification reached
    /// the server.
    private func testNotification(_ subcommand: CommandArguments) async throws -> Int32 {
        try subcommand.check(positionals: [], options: ["--environment", "--wait"])
        var request = RequestTestNotificationRequest()
        request.environment = try Self.appStoreEnvironment(subcommand)
        let wait = try subcommand.integer("--wait", Int.self, minimum: 0) ?? 10
        let client = try connect(.secretKey)
        let requested = try await client.requestTestNotification(request)
        var status = GetTestNotificationStatusRequest()
        status.testNotificationToken = requested.testNotificationToken
        status.environment = requested.environment
        let deadline = Date().addingTimeInterval(TimeInterval(wait))
        var answer = try await client.getTestNotificationStatus(status)
        while !answer.received, Date() < deadline {
            try await Task.sleep(for: .milliseconds(500))
            answer = try await client.getTestNotificationStatus(status)
        }
        let attempts = answer.sendAttempts.map(\.result).joined(separator: ", ")
        printer.print(
            answer,
            human: [
                answer.received
                    ? "received: the TEST notification reached the server (\(requested.environment.name))"
                    : "not received within \(wait) s (\(requested.environment.name))"
                        + (attempts.isEmpty ? "" : "; Apple's attempts: \(attempts)"),
            ])
        return answer.received ? 0 : 1
    }

    /// `appstore check [--tenant ID] [--wait SECONDS]`: exit 0 only when every check passed.
    private func check(_ subcommand: CommandArguments) async throws -> Int32 {
        try subcommand.check(positionals: [], options: ["--tenant", "--wait"])
        var request = CheckAppStoreSetupRequest()
        if let wait = try subcommand.integer("--wait", Int64.self, minimum: 0) {
            request.wait = ProtoDuration(seconds: wait, nanos: 0)
        }
        let response = try await connect(.secretKey).checkAppStoreSetup(request)
        if let tenant = subcommand.value("--tenant"), tenant != response.tenantID {
            throw UsageError(description: "--tenant \(tenant): the key given is tenant '\(response.tenantID)''s")
        }
        printer.print(
            response,
            human: ["tenant \(response.tenantID): " + (response.ok ? "ok" : "problems found")]
                + response.checks.map { "  \($0.ok ? "ok  " : "FAIL") \($0.environment.name) \($0.name): \($0.detail)" })
        return response.ok ? 0 : 1
    }

    private static func appStoreEnvironment(_ subcommand: CommandArguments) throws(UsageError) -> StoreEnvironment {
        switch subcommand.value("--environment")?.lowercased() {
        case nil: return .unspecified
        case "production": return .production
        case "sandbox": return .sandbox
        case let other?: throw UsageError(description: "invalid --environment '\(other)': expected production or sandbox")
        }
    }
}
