import CivilCalendar
import Encodings

/// The JSON forms of what the server holds about a customer, one vocabulary for the webhooks' `data` and the
/// customer export: a status, a purchase, a revenue ledger row, a grant, a time.
enum CustomerJSON {
    static func status(_ status: ComputedStatus) -> JSONValue {
        .object([
            ("state", .string(status.isActive ? "active" : "inactive")),
            (
                "entitlements",
                .array(
                    status.entitlements.map { entitlement in
                        .object([
                            ("id", .string(entitlement.id)),
                            ("source", .string(entitlement.source.webhookName)),
                            ("product_id", .string(entitlement.productID)),
                            ("expires_at", time(entitlement.expiresAt)),
                            ("will_renew", .bool(entitlement.willRenew)),
                            ("in_grace_period", .bool(entitlement.inGracePeriod)),
                            ("in_billing_retry", .bool(entitlement.inBillingRetry)),
                        ])
                    })
            ),
        ])
    }

    static func purchase(_ purchase: StorePurchase) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("store", .string(purchase.store.webhookName)),
            ("product_id", .string(purchase.productID)),
            ("original_transaction_id", .string(purchase.originalTransactionID)),
            ("transaction_id", .string(purchase.transactionID)),
            ("environment", .string(purchase.environment.webhookName)),
            ("entitlement_ids", .array(purchase.entitlementIDs.map(JSONValue.string))),
            ("purchased_at", time(purchase.purchasedAt)),
            ("expires_at", time(purchase.expiresAt)),
            ("revoked_at", time(purchase.revokedAt)),
            ("will_renew", .bool(purchase.willRenew)),
            ("in_grace_period", .bool(purchase.renewal.inGracePeriod)),
            ("in_billing_retry", .bool(purchase.renewal.inBillingRetry)),
            ("ownership", .string(purchase.ownership == .familyShared ? "family_shared" : "purchased")),
        ]
        if let price = purchase.price {
            members.append(
                ("price", .object([("amount_milliunits", .number(String(price.milliunits))), ("currency", .string(price.currency))])))
        }
        if let sale = purchase.sale {
            members.append(("offer_kind", .string(sale.offer.name)))
            if !sale.country.isEmpty { members.append(("country", .string(sale.country))) }
        }
        if !purchase.revocationReason.isEmpty { members.append(("revocation_reason", .string(purchase.revocationReason))) }
        if !purchase.offerType.isEmpty { members.append(("offer_type", .string(purchase.offerType))) }
        if !purchase.renewalProductID.isEmpty { members.append(("renewal_product_id", .string(purchase.renewalProductID))) }
        return .object(members)
    }

    /// A revenue ledger row as its columns say it (README, "The revenue ledger").
    static func revenue(_ entry: LedgerEntry) -> JSONValue {
        .object([
            ("kind", .string(entry.kind.name)),
            ("direction", .string(entry.kind.direction.name)),
            ("store", .string(entry.store.webhookName)),
            ("transaction_id", .string(entry.transactionID)),
            ("original_transaction_id", .string(entry.originalTransactionID)),
            ("product_id", .string(entry.productID)),
            ("environment", .string(entry.environment.webhookName)),
            ("amount_milliunits", .number(String(entry.amount.milliunits))),
            ("currency", .string(entry.amount.currency)),
            ("tax_milliunits", entry.taxMilliunits.map { .number(String($0)) } ?? .null),
            ("proceeds_milliunits", .number(String(entry.proceedsMilliunits))),
            ("country", .string(entry.country)),
            ("offer_kind", .string(entry.offer.name)),
            ("period_start", time(entry.periodStart)),
            ("period_end", time(entry.periodEnd)),
            ("occurred_at", time(entry.occurredAt)),
        ])
    }

    static func grant(_ grant: GrantRecord) -> JSONValue {
        .object([
            ("grant_id", .string(grant.grantID)),
            ("entitlement_id", .string(grant.entitlementID)),
            ("starts_at", time(grant.startsAt)),
            ("expires_at", time(grant.expiresAt)),
            ("revoked_at", time(grant.revokedAt)),
        ])
    }

    /// RFC 3339 in UTC with milliseconds; null for "never".
    static func time(_ time: UnixTime?) -> JSONValue {
        guard let time else { return .null }
        let (seconds, milliseconds) = time.secondsAndMilliseconds
        return .string(CivilCalendar.iso8601(seconds: seconds, fraction: milliseconds, digits: 3))
    }
}
