import BoundedText
import EntitlementsProto
import EntitlementClient
import ProtobufWire

/// The AdminService commands, called with a secret key: grant, revoke, customer, attributes, events, refresh-purchase.
extension Entctl {
    /// `grant APP_USER_ID ENTITLEMENT [--duration D | --expires-at T] [--reason TEXT] [--idempotency-key KEY]`
    func grant() async throws -> Int32 {
        try arguments.check(
            positionals: ["APP_USER_ID", "ENTITLEMENT"],
            options: ["--duration", "--expires-at", "--reason", "--idempotency-key"])
        let appUserID = try arguments.positional(0, "APP_USER_ID")
        let entitlementID = try arguments.positional(1, "ENTITLEMENT")
        var duration: Duration?
        if let text = arguments.value("--duration") {
            guard let parsed = TimeText.parseDuration(text) else {
                throw UsageError(
                    description: "invalid --duration '\(text)': expected a positive span such as 30d, 12h, 90m or 45s")
            }
            duration = parsed
        }
        var expiresAt: ProtoTimestamp?
        if let text = arguments.value("--expires-at") {
            guard duration == nil else {
                throw UsageError(description: "grant takes --duration or --expires-at, not both")
            }
            guard let parsed = TimeText.parseRFC3339(text) else {
                throw UsageError(
                    description: "invalid --expires-at '\(text)': expected RFC 3339 such as 2030-01-31T12:00:00Z")
            }
            expiresAt = parsed
        }
        let grant = try await connect(.secretKey).grantEntitlement(
            appUserID: appUserID, entitlementID: entitlementID, expiresAt: expiresAt, duration: duration,
            reason: arguments.value("--reason") ?? "", idempotencyKey: arguments.value("--idempotency-key") ?? "")
        printer.print(grant, human: HumanOutput.grant(grant))
        return 0
    }

    /// `revoke GRANT_ID [--reason TEXT]`
    func revoke() async throws -> Int32 {
        try arguments.check(positionals: ["GRANT_ID"], options: ["--reason"])
        let grantID = try arguments.positional(0, "GRANT_ID")
        let grant = try await connect(.secretKey).revokeGrant(
            grantID: grantID, reason: arguments.value("--reason") ?? "")
        printer.print(grant, human: HumanOutput.grant(grant))
        return 0
    }

    /// `customer APP_USER_ID`
    func customer() async throws -> Int32 {
        try await ask(
            "APP_USER_ID", with: .secretKey, { try await $0.getCustomer(appUserID: $1) }, human: HumanOutput.customer)
    }

    /// `attributes APP_USER_ID [KEY=VALUE ...] [--unset KEY ...] [--app]`: sets and removes attributes (as the
    /// backend, or with `--app` as an app for its current user); with neither, lists them.
    func attributes() async throws -> Int32 {
        try arguments.check(positionals: ["APP_USER_ID"], optional: Int.max - 1, options: ["--unset", "--app"])
        let appUserID = try arguments.positional(0, "APP_USER_ID")
        var set: [Attribute] = []
        for assignment in arguments.positionals.dropFirst() {
            guard let equals = assignment.firstIndex(of: "="), equals != assignment.startIndex else {
                throw UsageError(description: "'\(assignment)' is not KEY=VALUE")
            }
            set.append(Attribute(key: String(assignment[..<equals]), value: String(assignment[assignment.index(after: equals)...])))
        }
        let unset = arguments.values("--unset")
        guard !set.isEmpty || !unset.isEmpty else {
            guard !arguments.flag("--app") else { throw UsageError(description: "--app needs KEY=VALUE or --unset KEY") }
            let customer = try await connect(.secretKey).getCustomer(appUserID: appUserID)
            let listed = SetAttributesResponse(
                attributes: customer.attributes, appUserID: customer.customer?.appUserID ?? appUserID)
            printer.print(listed, human: ["\(listed.appUserID)"] + HumanOutput.attributes(listed.attributes).map { "  " + $0 })
            return 0
        }
        let asApp = arguments.flag("--app")
        let response = try await connect(asApp ? .publicKey : .secretKey).setAttributes(
            appUserID: appUserID, set: set, unset: unset, asApp: asApp)
        printer.print(response, human: HumanOutput.setAttributes(response))
        return 0
    }

    /// `refresh-purchase TOKEN [--product ID]`: asks Google Play for the purchase again and applies what it says now
    /// (a missed notification, a support case); a failed acknowledgement is tried again. `--product` is needed only
    /// for a purchase the server does not hold yet.
    func refreshPurchase() async throws -> Int32 {
        try arguments.check(positionals: ["TOKEN"], options: ["--product"])
        let token = try arguments.positional(0, "TOKEN")
        let productID = try arguments.optional("--product") ?? ""
        let response = try await connect(.secretKey).refreshStorePurchase(
            store: .playStore, purchaseID: token, productID: productID)
        printer.print(response, human: HumanOutput.refreshedPurchase(response))
        return 0
    }

    /// `redemption-code STRIPE_ID`: a new single-use code for the web purchase nobody owns that the ID names.
    func redemptionCode() async throws -> Int32 {
        try await ask("STRIPE_ID", with: .secretKey, { try await $0.getRedemptionCode(stripeID: $1) }) {
            HumanOutput.redemptionCode($0)
        }
    }

    /// `webhooks test|list|redeliver ...`
    func webhooks() async throws -> Int32 {
        switch arguments.subcommand() {
        case let subcommand? where subcommand.command == "webhooks test": return try await testWebhook(subcommand)
        case let subcommand? where subcommand.command == "webhooks list": return try await listWebhooks(subcommand)
        case let subcommand? where subcommand.command == "webhooks redeliver": return try await redeliverWebhooks(subcommand)
        case let subcommand?: throw CommandHelp.unknownCommand(subcommand.command)
        case nil: throw UsageError(description: "webhooks needs a command: test, list or redeliver")
        }
    }

    /// `webhooks test ENDPOINT_ID`: a signed test delivery to one of the tenant's endpoints; exit 0 only when the
    /// endpoint answered 2xx.
    private func testWebhook(_ subcommand: CommandArguments) async throws -> Int32 {
        try subcommand.check(positionals: ["ENDPOINT_ID"])
        let endpointID = try subcommand.positional(0, "ENDPOINT_ID")
        let response = try await connect(.secretKey).sendTestWebhook(endpointID: endpointID)
        printer.print(response, human: HumanOutput.testWebhook(response))
        return response.delivered ? 0 : 1
    }

    /// `webhooks list [--endpoint ID] [--user APP_USER_ID] [--state S] [--since T] [--until T] [--page-size N]
    /// [--page-token T]`: one page of the delivery log, newest first.
    private func listWebhooks(_ subcommand: CommandArguments) async throws -> Int32 {
        try subcommand.check(
            positionals: [],
            options: ["--endpoint", "--user", "--state", "--since", "--until", "--page-size", "--page-token"])
        var request = ListWebhookDeliveriesRequest(
            endpointID: subcommand.value("--endpoint") ?? "", appUserID: subcommand.value("--user") ?? "",
            pageSize: try subcommand.integer("--page-size", Int32.self, minimum: 1) ?? 0,
            pageToken: subcommand.value("--page-token") ?? "")
        if let state = subcommand.value("--state") {
            let names = ["pending", "delivered", "failed", "notice"]
            guard let index = names.firstIndex(of: state.lowercased()) else {
                throw UsageError(description: "invalid --state '\(state)': expected \(names.joined(separator: ", "))")
            }
            request.state = WebhookDeliveryState(rawValue: Int32(index + 1))
        }
        (request.createdAfter, request.createdBefore) = try Self.timeRange(subcommand)
        let response = try await connect(.secretKey).listWebhookDeliveries(request)
        printer.print(response, human: HumanOutput.webhookDeliveries(response))
        return 0
    }

    /// `webhooks redeliver [DELIVERY_ID] [--endpoint ID] [--since T] [--until T]`: one delivery, or every failed one
    /// matching, sent again with its original webhook-id.
    private func redeliverWebhooks(_ subcommand: CommandArguments) async throws -> Int32 {
        try subcommand.check(positionals: [], optional: 1, options: ["--endpoint", "--since", "--until"])
        var request = RedeliverWebhooksRequest(endpointID: subcommand.value("--endpoint") ?? "")
        if !subcommand.positionals.isEmpty {
            let text = try subcommand.positional(0, "DELIVERY_ID")
            guard let id = Int64(text), id > 0 else {
                throw UsageError(description: "invalid DELIVERY_ID '\(text)': expected a delivery ID from `webhooks list`")
            }
            request.deliveryID = id
        }
        (request.createdAfter, request.createdBefore) = try Self.timeRange(subcommand)
        let response = try await connect(.secretKey).redeliverWebhooks(request)
        printer.print(response, human: ["requeued " + counted(response.requeued, "delivery", "deliveries")])
        return 0
    }

    /// `--since` and `--until`, RFC 3339.
    static func timeRange(_ arguments: CommandArguments) throws(UsageError) -> (ProtoTimestamp?, ProtoTimestamp?) {
        func time(_ name: String) throws(UsageError) -> ProtoTimestamp? {
            guard let text = arguments.value(name) else { return nil }
            guard let parsed = TimeText.parseRFC3339(text) else {
                throw UsageError(description: "invalid \(name) '\(text)': expected RFC 3339 such as 2030-01-31T12:00:00Z")
            }
            return parsed
        }
        return (try time("--since"), try time("--until"))
    }

    /// `events APP_USER_ID [--page-size N] [--page-token T] [--all]`: one page, or with `--all` every page from the
    /// token on. `--json` prints one object per page.
    func events() async throws -> Int32 {
        try arguments.check(positionals: ["APP_USER_ID"], options: ["--page-size", "--page-token", "--all"])
        let appUserID = try arguments.positional(0, "APP_USER_ID")
        let pageSize = try arguments.integer("--page-size", Int32.self, minimum: 1) ?? 0
        let all = arguments.flag("--all")
        var pageToken = arguments.value("--page-token") ?? ""
        let client = try connect(.secretKey)
        var printedAny = false
        repeat {
            let page = try await client.listCustomerEvents(
                appUserID: appUserID, pageSize: pageSize, pageToken: pageToken)
            printer.print(page, human: page.events.map(HumanOutput.customerEvent))
            printedAny = printedAny || !page.events.isEmpty
            pageToken = page.nextPageToken
        } while all && !pageToken.isEmpty
        if !printer.json {
            if !printedAny { Output.line("no events") }
            if !pageToken.isEmpty { Output.line("more: --page-token \(pageToken)") }
        }
        return 0
    }
}
