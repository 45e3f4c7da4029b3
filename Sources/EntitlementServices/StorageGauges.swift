public import EntitlementDomain
public import Metrics

/// Gauges read from the database at scrape time: the webhook outbox's backlog, active subscribers per tenant and
/// entitlement, and offer signatures and redemptions per tenant and offer (tenants, their entitlements and their
/// offers are few and configured, so the series stay bounded). A scrape that
/// cannot read the database leaves these samples out and sets `entitlementd_storage_scrape_ok` to 0.
public struct StorageGauges: MetricsSource {
    let repository: any CustomerRepository
    let tenants: TenantRegistry
    let now: @Sendable () -> UnixTime

    public init(repository: any CustomerRepository, tenants: TenantRegistry, now: @escaping @Sendable () -> UnixTime) {
        self.repository = repository
        self.tenants = tenants
        self.now = now
    }

    public func collect(into text: inout PrometheusText) {
        let now = now()
        var ok = true
        text.family(
            "entitlementd_webhook_outbox_pending", .gauge, help: "Webhook deliveries not yet delivered or given up on.")
        text.family(
            "entitlementd_webhook_outbox_oldest_pending_seconds", .gauge,
            help: "Age of the oldest pending webhook delivery (0 when none is pending).")
        if let backlog = try? repository.webhookBacklog() {
            text.sample("entitlementd_webhook_outbox_pending", Double(backlog.pending))
            let age = backlog.oldestCreatedAt.map { max(0, now.milliseconds - $0.milliseconds) } ?? 0
            text.sample("entitlementd_webhook_outbox_oldest_pending_seconds", Double(age) / 1000)
        } else {
            ok = false
        }
        text.family(
            "entitlementd_active_subscribers", .gauge,
            help: "Customers with an entitlement active now, by tenant and entitlement.")
        for tenant in tenants.directory.tenants {
            guard let counts = try? repository.subscriberCounts(tenantID: tenant.id, at: now) else {
                ok = false
                continue
            }
            // Declared entitlements only: granted undeclared IDs could be any string.
            for entitlement in tenant.declaredEntitlements.sorted() {
                text.sample(
                    "entitlementd_active_subscribers", ["tenant": tenant.id, "entitlement": entitlement],
                    Double(counts.perEntitlement[entitlement] ?? 0))
            }
        }
        text.family(
            "entitlementd_offer_signatures_total", .counter,
            help: "Offer signatures made (SignOffer), by tenant, kind and promotional offer identifier.")
        text.family(
            "entitlementd_offer_redemptions_total", .counter,
            help: "Promotional offer signatures an App Store transaction redeemed, by tenant and offer identifier.")
        if let totals = try? repository.offerTotals() {
            for total in totals {
                let promotional = !total.offerID.isEmpty
                text.sample(
                    "entitlementd_offer_signatures_total",
                    ["tenant": total.tenantID, "kind": promotional ? "promotional" : "introductory_eligibility",
                     "offer": total.offerID],
                    Double(total.signed))
                if promotional {
                    text.sample(
                        "entitlementd_offer_redemptions_total", ["tenant": total.tenantID, "offer": total.offerID],
                        Double(total.redeemed))
                }
            }
        } else {
            ok = false
        }
        text.family(
            "entitlementd_storage_scrape_ok", .gauge, help: "1 when this scrape read the database's gauges, 0 when not.")
        text.sample("entitlementd_storage_scrape_ok", ok ? 1 : 0)
    }
}
