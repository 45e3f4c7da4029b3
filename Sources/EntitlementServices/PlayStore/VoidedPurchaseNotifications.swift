import BoundedText
import EntitlementDomain
import GooglePlay
import GooglePlayAPI
import RPCCore

/// `voidedPurchaseNotification`: a refund or chargeback that took a purchase back. The push's token is not bound to
/// its body, so Google is asked before anything is revoked.
extension PlayStoreNotifications {
    /// What a voided purchase takes back: the stored purchase revoked, or nil when there is nothing to revoke (never
    /// seen, an earlier renewal's order, already revoked, a partial refund of a quantity).
    ///
    /// A subscription's void is confirmed by Google's voided purchases, not by its state (which can still say ACTIVE
    /// after a refund): one Google does not list yet is retried (`storeUnavailable`) while it may still appear
    /// (``VoidedPurchasePages/listingDelay`` after the notification), then acknowledged unapplied (`notApplicable`).
    /// A one-time product Google still shows purchased is not revoked; its current data is applied instead.
    func voidedRecord(token: String, orderID: String?, partial: Bool, tenant: Tenant, notifiedAt: UnixTime?)
        async throws(DomainError) -> StorePurchase?
    {
        guard !partial, let stored = try engine.purchases.purchase(tenantID: tenant.id, store: .playStore, originalTransactionID: token)
        else { return nil }
        if stored.productType == PlayProductType.subscription.rawValue {
            return try await voidedSubscription(stored, token: token, orderID: orderID, tenant: tenant, notifiedAt: notifiedAt)
        }
        let voidedAt = notifiedAt ?? engine.now()
        let current = try await purchases.product(
            productID: stored.productID, token: token, tenant: tenant, origin: .notification, refreshOrder: true)
        if PurchaseAccess(current).grants(at: engine.now()) {
            log.warning(
                "play voided-purchase notification for a purchase Google still shows in force: not revoked",
                ["tenant": tenant.id, "order_id": orderID ?? ""])
            return current
        }
        // Google's data already grants nothing; the void dates the end.
        var revoked = PlayStoreInterpretation.revoking(current, orderID: orderID, voidedAt: voidedAt, reason: "VOIDED")
            ?? current
        if let canceled = current.revokedAt {
            // Google shows the one-time purchase canceled: the void is why, from when it happened.
            revoked.revokedAt = min(canceled, voidedAt)
            revoked.revocationReason = "VOIDED"
            revoked = PlayStoreInterpretation.refundedInFull(revoked)
        }
        revoked.customerID = stored.customerID
        return revoked
    }

    /// The subscription revoked from when Google's voided purchases say its order was voided (of the current or
    /// first order only), built on Google's current data for the token.
    private func voidedSubscription(
        _ stored: StorePurchase, token: String, orderID: String?, tenant: Tenant, notifiedAt: UnixTime?
    ) async throws(DomainError) -> StorePurchase {
        let now = engine.now()
        guard let listed = try await listedVoid(token: token, orderID: orderID, tenant: tenant, notifiedAt: notifiedAt, now: now)
        else {
            let what = orderID.map { "order \($0.quotedForMessage) of this purchase token" } ?? "this purchase token"
            if let notifiedAt, now.milliseconds - notifiedAt.milliseconds < VoidedPurchasePages.listingDelay {
                throw .storeUnavailable("Google's voided purchases do not list \(what) yet; it may still appear.")
            }
            log.warning(
                "play voided-purchase notification that Google's voided purchases do not list: not revoked",
                ["tenant": tenant.id, "order_id": orderID ?? ""])
            throw .notApplicable("Google's voided purchases do not list \(what): not revoked.")
        }
        let current = try await purchases.subscription(token: token, tenant: tenant, refreshOrder: true).purchase
        let listedAt = try VoidedPurchasePages.voidedAt(listed)
        // Never later than now: a void Google dates ahead of our clock still ends access at once.
        let voidedAt = min(listedAt ?? notifiedAt ?? now, now)
        // A chargeback is named (the revenue ledger records it as one); any other void is "VOIDED".
        let reason = listed.reasonName == "VOIDED_CHARGEBACK" ? listed.reasonName : "VOIDED"
        var revoked = PlayStoreInterpretation.revoking(current, orderID: listed.orderId, voidedAt: voidedAt, reason: reason)
            ?? current
        revoked.customerID = stored.customerID
        return revoked
    }

    /// Google's record of this void: the token's entry (of `orderID`, when the notification names one) among the
    /// voids Google saw since a little before the notification's time.
    private func listedVoid(token: String, orderID: String?, tenant: Tenant, notifiedAt: UnixTime?, now: UnixTime)
        async throws(DomainError) -> VoidedPurchase?
    {
        let api = try purchases.api(for: tenant)
        // Without an event time, all Google keeps (the pages clamp the start to its 30 days). No end: Google's now,
        // so a void it saw a moment ago is listed whatever our clock says.
        let since = notifiedAt.map { min($0, now).milliseconds - VoidedPurchasePages.listingDelay } ?? 0
        var pages = VoidedPurchasePages(
            api: api, from: since, to: nil, now: now.milliseconds, tenantID: tenant.id, log: log)
        do throws(GooglePlayAPIError) {
            while let page = try await pages.next() {
                let match = page.first { voided in
                    voided.purchaseToken == token && (orderID.map { $0.isEmpty || $0 == voided.orderId } ?? true)
                }
                if let match { return match }
            }
            return nil
        } catch {
            // Whatever Google says about the listing (failing, refusing our query) is no answer about this void:
            // the notification is kept, and Pub/Sub redelivers it.
            let failure = PlayStorePurchases.domainError(error)
            throw failure.code == .notApplicable ? .storeUnavailable(error.message) : failure
        }
    }
}
