import BoundedText
import EntitlementsProto
import ProtobufWire

/// The default, human-readable output: short lines, times in RFC 3339 UTC to the second.
enum HumanOutput {
    static func time(_ timestamp: ProtoTimestamp?) -> String {
        timestamp.map { TimeText.rfc3339($0, fractional: false) } ?? "-"
    }

    /// `pro until 2025-01-31T12:00:00Z` or `pro lifetime`, plus the store details that apply.
    static func entitlement(_ entitlement: ActiveEntitlement) -> String {
        var text = entitlement.id + (entitlement.expiresAt.map { " until " + time($0) } ?? " lifetime")
        var details = [entitlement.source.name]
        if !entitlement.productID.isEmpty { details.append(entitlement.productID) }
        if entitlement.willRenew { details.append("renews") }
        if entitlement.inGracePeriod { details.append("grace period") }
        if entitlement.inBillingRetry { details.append("billing retry") }
        text += " (" + details.joined(separator: ", ") + ")"
        return text
    }

    /// All entitlements on one line: `pro until ... (GRANT), premium lifetime (GRANT)`, or `no entitlements`.
    static func entitlements(_ status: SubscriptionStatus?) -> String {
        let entitlements = status?.entitlements ?? []
        return entitlements.isEmpty ? "no entitlements" : entitlements.map(entitlement).joined(separator: ", ")
    }

    /// `alice  ACTIVE  version 3`, then one indented line per entitlement.
    static func customerStatus(_ customer: CustomerStatus?, note: String? = nil) -> [String] {
        guard let customer else { return ["(no customer in the response)"] }
        let state = customer.status?.state.name ?? "STATE_UNSPECIFIED"
        var header = "\(customer.appUserID)  \(state)  version \(customer.version)"
        if let note { header += "  (\(note))" }
        let signed = customer.signedStatus.isEmpty ? [] : ["signed: " + customer.signedStatus]
        return [header] + (customer.status?.entitlements ?? []).map { "  " + entitlement($0) } + signed
    }

    /// The status, then the app account token the app passes to StoreKit (`appAccountToken`) so the App Store's
    /// notifications about a purchase reach this customer.
    static func identify(_ response: IdentifyResponse) -> [String] {
        let notes = [response.created ? "created" : nil, response.merged ? "merged" : nil].compactMap { $0 }
        return customerStatus(response.customer, note: notes.isEmpty ? nil : notes.joined(separator: ", "))
            + ["app account token: " + (response.appAccountToken.isEmpty ? "-" : response.appAccountToken)]
    }

    /// One line: `2025-01-31T12:00:00Z  STATUS_CHANGED  version 4  pro until ... (GRANT)  reason: ...`.
    static func statusEvent(_ event: StatusEvent) -> String {
        var line = "\(time(event.customer?.serverTime))  \(event.kind.name)  version \(event.customer?.version ?? 0)"
        line += "  " + entitlements(event.customer?.status)
        if !event.reason.isEmpty { line += "  reason: " + event.reason }
        return line
    }

    /// One line: `gr_...  pro  from 2025-... until 2025-...`, then revocation and reason when there are any.
    static func grantLine(_ grant: Grant) -> String {
        var line = "\(grant.grantID)  \(grant.entitlementID)  from \(time(grant.startsAt))"
        line += grant.expiresAt.map { " until " + time($0) } ?? " lifetime"
        if let revokedAt = grant.revokedAt {
            line += "  REVOKED \(time(revokedAt))"
            if !grant.revocationReason.isEmpty { line += " (\(grant.revocationReason))" }
        }
        if !grant.reason.isEmpty { line += "  reason: " + grant.reason }
        return line
    }

    static func grant(_ grant: Grant) -> [String] {
        var lines = [
            "grant        \(grant.grantID)",
            "app user     \(grant.appUserID)",
            "entitlement  \(grant.entitlementID)",
            "starts       \(time(grant.startsAt))",
            "expires      \(grant.expiresAt.map { time($0) } ?? "never")",
        ]
        if let revokedAt = grant.revokedAt { lines.append("revoked      \(time(revokedAt))") }
        if !grant.reason.isEmpty { lines.append("reason       \(grant.reason)") }
        if !grant.revocationReason.isEmpty { lines.append("revoked for  \(grant.revocationReason)") }
        return lines
    }

    /// The environment in its store's own word: Apple's SANDBOX, a Google Play license tester's TEST purchase,
    /// Stripe's TEST mode (and LIVE mode, Stripe's word for production). The API has one value, SANDBOX, for the first
    /// three; `--json` prints that.
    static func environment(_ environment: StoreEnvironment, of store: Store) -> String {
        switch (store, environment) {
        case (.playStore, .sandbox), (.web, .sandbox): "TEST"
        case (.web, .production): "LIVE"
        default: environment.name
        }
    }

    static func transactionLine(_ transaction: Transaction) -> String {
        var line = "\(transaction.store.name)  \(transaction.productID)  \(transaction.originalTransactionID)"
        line += "  " + environment(transaction.environment, of: transaction.store)
        line += "  purchased \(time(transaction.purchasedAt))"
        line += transaction.expiresAt.map { " until " + time($0) } ?? " lifetime"
        if transaction.ownership == .familyShared { line += "  family shared" }
        if transaction.willRenew {
            line += transaction.renewalProductID.isEmpty ? "  renews" : "  renews as \(transaction.renewalProductID)"
        }
        if transaction.inGracePeriod { line += "  grace period" }
        if transaction.inBillingRetry { line += "  billing retry" }
        if let revokedAt = transaction.revokedAt {
            line += "  REVOKED \(time(revokedAt))"
            if !transaction.revocationReason.isEmpty { line += " (\(transaction.revocationReason))" }
        }
        return line
    }

    /// One line: `NEW  com.example.pro.monthly  2000000001  SANDBOX  until 2025-...  active  moved from bob`, or
    /// `... claimed (nobody held it)` for a purchase this call gave its first owner (a redemption, say).
    static func purchaseResult(_ result: PurchaseResult) -> String {
        var line = "\(result.outcome.name)  \(result.productID)  \(result.originalTransactionID)"
        line += "  " + environment(result.environment, of: result.store)
        line += result.expiresAt.map { "  until " + time($0) } ?? "  lifetime"
        if let revokedAt = result.revokedAt { line += "  REVOKED \(time(revokedAt))" }
        line += result.active ? "  active" : "  inactive"
        if !result.transferredFromAppUserID.isEmpty { line += "  moved from \(result.transferredFromAppUserID)" }
        if result.claimed { line += "  claimed (nobody held it)" }
        return line
    }

    /// `SANDBOX 2030-01-01T00:00:00Z..2030-01-31T00:00:00Z: 25 found, 3 applied, ...`, then each rejection.
    static func reconciliation(_ report: AppStoreReconciliation) -> [String] {
        ["\(report.environment.name) \(report.startTime.map(time) ?? "?")..\(report.endTime.map(time) ?? "?"): "
            + "\(report.found) found, \(report.applied) applied, \(report.unchanged) unchanged, "
            + "\(report.unowned) without an owner yet, \(report.alreadyProcessed) already applied, "
            + "\(report.rejected) rejected"]
            + report.rejections.map { "  rejected: " + $0 }
    }

    /// `history of 2000000001 (SANDBOX): 41 transactions, 3 purchases`, then a line per purchase.
    static func appStoreHistory(_ history: AppStoreHistoryResult) -> [String] {
        ["history of \(history.transactionID) (\(history.environment.name)): "
            + counted(history.transactionsFound, "transaction") + ", " + counted(history.purchases.count, "purchase")]
            + history.purchases.map { "  " + purchaseResult($0) }
    }

    static func customer(_ customer: Customer) -> [String] {
        var lines = customerStatus(customer.customer)
        lines.append("aliases: " + (customer.aliases.isEmpty ? "none" : customer.aliases.joined(separator: ", ")))
        lines.append("grants: " + (customer.grants.isEmpty ? "none" : String(customer.grants.count)))
        lines += customer.grants.map { "  " + grantLine($0) }
        lines.append("transactions: " + (customer.transactions.isEmpty ? "none" : String(customer.transactions.count)))
        lines += customer.transactions.flatMap { transaction in
            ["  " + transactionLine(transaction)] + transactionDetails(transaction).map { "    " + $0 }
        }
        lines.append("attributes: " + (customer.attributes.isEmpty ? "none" : String(customer.attributes.count)))
        lines += attributes(customer.attributes).map { "  " + $0 }
        if !customer.offerSignatures.isEmpty {
            lines.append("offer signatures: \(customer.offerSignatures.count)")
            lines += customer.offerSignatures.map { "  " + offerSignature($0) }
        }
        return lines
    }

    /// What an erasure did, by the erased ID's hash.
    static func deletedCustomer(_ response: DeleteCustomerResponse) -> [String] {
        guard !response.alreadyDeleted else { return ["\(response.subject)  already deleted (the files were cleared again)"] }
        return [
            "\(response.subject)  deleted: \(response.eventsDeleted) events, \(response.webhookDeliveriesDeleted) webhook "
                + "deliveries; purchases kept without an owner: \(response.purchasesKept), deleted: \(response.purchasesDeleted)"
        ]
    }

    /// One line: `2030-01-31T12:00:00Z  CUSTOMER_EXPORTED  alice  key support-ana  request 9f2c...`.
    static func auditEvent(_ event: AuditEvent) -> String {
        "\(time(event.occurredAt))  \(event.action.name)  \(event.subject)  key \(event.keyName)  request \(event.requestID)"
    }

    /// One line per attribute: `$email = ana@example.com  (set 2030-01-31T12:00:00Z)`.
    static func attributes(_ attributes: [Attribute]) -> [String] {
        attributes.map { "\($0.key) = \($0.value)  (set \(time($0.updatedAt)))" }
    }

    /// What changed, then the attributes after it.
    static func setAttributes(_ response: SetAttributesResponse) -> [String] {
        let changed = response.changedKeys.isEmpty ? "nothing changed" : "changed: " + response.changedKeys.joined(separator: ", ")
        return ["\(response.appUserID)  \(changed)"] + attributes(response.attributes).map { "  " + $0 }
    }

    /// The lines under a transaction for what does not fit on its line: the purchase that replaced it or that it
    /// replaced (a Play upgrade, downgrade or re-signup; a replaced purchase grants nothing), whether the store
    /// suspends it (a Play payment pending, a subscription on hold), and for Play purchases
    /// what the server owes Google: `acknowledgement FAILED after 5 attempts: ...`.
    static func transactionDetails(_ transaction: Transaction) -> [String] {
        var lines: [String] = []
        if !transaction.supersededBy.isEmpty { lines.append("superseded by \(transaction.supersededBy)") }
        if !transaction.replaces.isEmpty { lines.append("replaces \(transaction.replaces)") }
        if transaction.suspended { lines.append("suspended: the store says it gives nothing now") }
        // The App Store needs none: every App Store transaction would say NOT_REQUIRED.
        if transaction.store == .playStore { lines.append(acknowledgement(transaction)) }
        return lines
    }

    /// `acknowledgement ACKNOWLEDGED`, `acknowledgement PENDING (2 failed attempts: ...)` while the server retries,
    /// `acknowledgement FAILED after 5 attempts: ...` once it gave up; the error is the last attempt's.
    static func acknowledgement(_ transaction: Transaction) -> String {
        let attempts = transaction.acknowledgementAttempts
        let error = transaction.acknowledgementError.isEmpty ? "" : ": " + transaction.acknowledgementError
        var line = "acknowledgement \(transaction.acknowledgement.name)"
        switch transaction.acknowledgement {
        case .failed: line += " after " + counted(attempts, "attempt") + error
        case .pending where attempts > 0: line += " (" + counted(attempts, "failed attempt") + error + ")"
        default: break
        }
        return line
    }

    /// `changed` or `unchanged`, the purchase as stored now, then its owner's status (or that nobody owns it yet).
    static func refreshedPurchase(_ response: RefreshStorePurchaseResponse) -> [String] {
        var lines = [response.changed ? "changed" : "unchanged"]
        if let transaction = response.transaction {
            lines.append("transaction: " + transactionLine(transaction))
            lines += transactionDetails(transaction).map { "  " + $0 }
        } else {
            lines.append("transaction: none stored")
        }
        if let customer = response.customer {
            lines += customerStatus(customer).enumerated().map { index, line in index == 0 ? "owner: " + line : line }
        } else {
            lines.append("owner: none yet (the purchase is attached to a customer by Purchase or Restore)")
        }
        return lines
    }

    /// `delivered  msg_...  HTTP 204  38 ms`, or `not delivered  msg_...  HTTP 503  12 ms: ...`.
    static func testWebhook(_ response: SendTestWebhookResponse) -> [String] {
        // Checked: the server's answer is outside input here, and a Duration may hold any Int64.
        let milliseconds = response.duration?.milliseconds ?? 0
        var line = (response.delivered ? "delivered" : "not delivered") + "  \(response.webhookID)"
        line += response.statusCode == 0 ? "  no answer" : "  HTTP \(response.statusCode)"
        line += "  \(milliseconds) ms"
        if !response.error.isEmpty { line += ": " + response.error }
        return [line]
    }

    /// One line per delivery: `42  DELIVERED  backend  customer.renewal  user-1 v7  2 attempts  HTTP 204  ...`.
    static func webhookDeliveries(_ response: ListWebhookDeliveriesResponse) -> [String] {
        var lines = response.deliveries.map { delivery in
            let state = delivery.state.name.replacing("WEBHOOK_DELIVERY_STATE_", with: "")
            var line = "\(delivery.deliveryID)  \(state)  \(delivery.endpointID)  \(delivery.type)"
            line += "  \(delivery.appUserID) v\(delivery.version)  \(time(delivery.createdAt))"
            line += "  " + counted(delivery.attempts, "attempt")
            if delivery.lastStatusCode != 0 { line += "  HTTP \(delivery.lastStatusCode)" }
            if let next = delivery.nextAttemptAt { line += "  next: " + time(next) }
            if !delivery.lastError.isEmpty { line += "  error: " + delivery.lastError }
            return line + "  " + delivery.webhookID
        }
        if lines.isEmpty { lines.append("no deliveries") }
        if !response.nextPageToken.isEmpty { lines.append("next page: --page-token \(response.nextPageToken)") }
        return lines
    }

    static func redemptionCode(_ response: RedemptionCode) -> [String] {
        [
            "code: \(response.code)",
            "expires: " + (response.expiresAt.map(time) ?? "never"),
            "purchase: " + (response.transaction.map(transactionLine) ?? "none"),
        ]
    }

    /// A listed customer: its status lines, noting when it last changed.
    static func listedCustomer(_ listed: ListedCustomer) -> [String] {
        customerStatus(listed.customer, note: "changed " + time(listed.changedAt))
    }

    /// `active customers: 3`, then one line per entitlement, product and store.
    static func customerCounts(_ response: CountCustomersResponse) -> [String] {
        ["active customers: \(response.activeCustomers)"]
            + response.entitlements.map { "entitlement \($0.id): \($0.customers)" }
            + response.products.map { "product \($0.id): \($0.customers)" }
            + response.stores.map { "store \($0.store.name): \($0.customers)" }
            + ["counted at " + time(response.countedAt)]
    }

    /// `user tokens: OBSERVE, iss https://…, …`, one line per outcome and reason counted, then the status keys.
    static func trust(_ trust: TrustDescription) -> [String] {
        let tokens = trust.userTokens ?? UserTokenDescription()
        var lines = ["user tokens: \(tokens.mode.name)"]
        if tokens.mode != .off {
            var keys: [String] = []
            if tokens.hs256Secrets > 0 { keys.append("\(tokens.hs256Secrets) HS256 secret(s)") }
            if !tokens.keysFrom.isEmpty { keys.append("keys from " + tokens.keysFrom) }
            lines[0] += ", iss \(tokens.issuer), at most \(tokens.maxLifetimeSeconds) s, " + keys.joined(separator: ", ")
            lines[0] += tokens.allowsAnonymous ? ", anonymous IDs need none" : ", anonymous IDs need one too"
        }
        lines.append("  counted since " + time(tokens.countedSince) + (tokens.counts.isEmpty ? ": nothing" : ":"))
        lines += tokens.counts.map { "  \($0.outcome)\($0.reason.isEmpty ? "" : " (\($0.reason))"): \($0.count)" }
        guard let signing = trust.signedStatus else { return lines + ["signed status: no"] }
        return lines + [
            "signed status: signed with \(signing.signingKeyID), keys published: "
                + signing.keyIDs.joined(separator: ", ") + ", valid offline \(signing.offlineValidityHours) h"
        ]
    }

    /// One line: `alice  ALIAS` or `nobody  ORIGINAL_TRANSACTION_ID  APP_STORE 2000000000000042`.
    static func customerMatch(_ match: CustomerMatch) -> String {
        var line = (match.appUserID.isEmpty ? "nobody" : match.appUserID) + "  " + match.matchedBy.name
        if match.store != .unspecified { line += "  \(match.store.name) \(match.originalTransactionID)" }
        return line
    }

    /// One line: `version 5  2025-...  REVOKE  STATUS_CHANGED  no entitlements  reason: ...  reference: g_...`.
    static func customerEvent(_ event: CustomerEvent) -> String {
        var line = "version \(event.version)  \(time(event.occurredAt))  \(event.cause.name)  \(event.change.name)"
        line += "  " + entitlements(event.status)
        if !event.reason.isEmpty { line += "  reason: " + event.reason }
        if !event.relatedAppUserID.isEmpty { line += "  related: " + event.relatedAppUserID }
        if !event.referenceID.isEmpty { line += "  reference: " + event.referenceID }
        if !event.keyName.isEmpty { line += "  key: " + event.keyName }
        return line
    }
}
