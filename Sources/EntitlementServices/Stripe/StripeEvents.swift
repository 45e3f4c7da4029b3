import BoundedText
import CivilCalendar
import EntitlementDomain
import Stripe
import StripeAPI

/// What each Stripe event means for the purchases it touches. An event says "this object changed": with the tenant's
/// API key the object is fetched and applied as it is now; without one, the event's snapshot is applied as of the
/// event's `created` (``StripeInterpretation/observationTime(created:status:)``), and data older than what is held
/// changes nothing. Every ID that names a purchase (a checkout session, customer, invoice, payment intent) is kept
/// as a ``PurchaseReference``, so that a later refund, dispute or redemption finds it.
struct StripeEvents: Sendable {
    let engine: CustomerEngine
    let apis: StripeAPIs

    /// Stripe event IDs, kept apart from the other stores' notification IDs.
    static func notificationID(_ eventID: String) -> String { "stripe:" + eventID }

    /// What the event means for the purchases it touches (``NotificationChange``, its note saying why nothing is
    /// applied when nothing is).
    func change(of event: StripeEvent, tenant: Tenant, settings: StripeSettings) async throws(DomainError)
        -> NotificationChange
    {
        // Taken before any fetch: see StripeFetch.
        let api = try apis.api(for: tenant, settings: settings).map { StripeFetch(client: $0, askedAt: engine.now()) }
        var change: NotificationChange
        switch (event.type, event.data.object) {
        case ("checkout.session.completed", .checkoutSession(let session)),
            ("checkout.session.async_payment_succeeded", .checkoutSession(let session)),
            ("checkout.session.async_payment_failed", .checkoutSession(let session)):
            change = try await checkoutCompleted(session, event: event, api: api, tenant: tenant, settings: settings)
        case (let type, .subscription(let subscription)) where type.hasPrefix("customer.subscription."):
            change = try await subscriptionChanged(subscription, event: event, api: api, tenant: tenant, settings: settings)
        case ("invoice.paid", .invoice(let invoice)), ("invoice.payment_succeeded", .invoice(let invoice)),
            ("invoice.payment_failed", .invoice(let invoice)):
            change = try await invoiceSettled(
                invoice, paid: event.type != "invoice.payment_failed", event: event, api: api, tenant: tenant,
                settings: settings)
        case ("charge.refunded", .charge(let charge)):
            change = try await chargeRefunded(charge, event: event, api: api, tenant: tenant)
        case ("charge.dispute.created", .dispute(let dispute)):
            change = try await disputeOpened(dispute, event: event, api: api, tenant: tenant)
        default:
            change = NotificationChange(note: "not an event this server acts on")
        }
        change.unclaimedCodeValidity = Int64(settings.redemptionCodeDays) * Milliseconds.perDay
        return change
    }

    /// 400 for an event this server acts on that carries the wrong kind of object.
    static func checkShape(_ event: StripeEvent) throws(DomainError) {
        let carried: String =
            switch event.data.object {
            case .subscription: "subscription"
            case .checkoutSession: "checkout.session"
            case .invoice: "invoice"
            case .charge: "charge"
            case .dispute: "dispute"
            case .other(let kind): kind
            }
        let expected = event.type.hasPrefix("customer.subscription.") ? "subscription" : expectedObject[event.type]
        guard let expected, expected != carried else { return }
        throw .malformedPayload(
            "A \(event.type.quotedForMessage) event carries a \(carried.quotedForMessage) object, not a \(expected).")
    }

    /// The object kind each event this server acts on must carry.
    static let expectedObject: [String: String] = [
        "checkout.session.completed": "checkout.session", "checkout.session.async_payment_succeeded": "checkout.session",
        "checkout.session.async_payment_failed": "checkout.session", "invoice.paid": "invoice",
        "invoice.payment_succeeded": "invoice", "invoice.payment_failed": "invoice", "charge.refunded": "charge",
        "charge.dispute.created": "dispute",
    ]

    private func observed(_ event: StripeEvent, status: StripeSubscription.OpenStatus? = nil, api: StripeFetch?)
        throws(DomainError) -> UnixTime
    {
        if let api { return api.askedAt }
        return try StripeInterpretation.observationTime(created: event.created, status: status)
    }

    // MARK: Events

    private func checkoutCompleted(
        _ snapshot: StripeCheckoutSession, event: StripeEvent, api: StripeFetch?, tenant: Tenant, settings: StripeSettings
    ) async throws(DomainError) -> NotificationChange {
        let session = try await fetch(api, snapshot) { api throws(StripeAPIError) in try await api.checkoutSession(snapshot.id) }
        let buyer = StripeInterpretation.namedUser(of: session) ?? ""
        var change = NotificationChange(ownerHints: buyer.isEmpty ? [] : [.appUserID(buyer)])
        let purchaseID: String
        switch session.mode {
        case "subscription":
            guard let subscriptionID = session.subscription?.id else {
                throw .malformedPayload("Checkout Session \(session.id.quotedForMessage) in subscription mode names no subscription.")
            }
            purchaseID = subscriptionID
            if let api {
                let subscription = try await fetched { () throws(StripeAPIError) in try await api.client.subscription(subscriptionID) }
                change.purchase = try StripeInterpretation.purchase(
                    fromSubscription: subscription, observedAt: api.askedAt, origin: .storeAPI, tenant: tenant,
                    settings: settings)
            } else {
                // The subscription's own events give its state; one held already, nobody's yet, is the buyer's now.
                change.purchase = try engine.purchases.purchase(tenantID: tenant.id, store: .stripe, originalTransactionID: subscriptionID)
                change.note = "the buyer is kept for subscription \(subscriptionID.quotedForMessage), whose own events give its state"
            }
        case "payment":
            guard
                let record = try StripeInterpretation.purchase(
                    fromCheckoutSession: session, observedAt: try observed(event, api: api),
                    origin: api == nil ? .notification : .storeAPI, tenant: tenant, settings: settings)
            else { return change }
            purchaseID = record.originalTransactionID
            change.purchase = record
        default:
            change.note = "a \((session.mode ?? "(no mode)").quotedForMessage) session buys nothing"
            return change
        }
        let ids = [session.id, session.customer?.id, session.invoice?.id, session.paymentIntent?.id].compactMap { $0 }
        change.references = ids.map {
            PurchaseReference(store: .stripe, referenceID: $0, originalTransactionID: purchaseID, appUserID: buyer)
        }
        return change
    }

    private func subscriptionChanged(
        _ snapshot: StripeSubscription, event: StripeEvent, api: StripeFetch?, tenant: Tenant, settings: StripeSettings
    ) async throws(DomainError) -> NotificationChange {
        let subscription = try await fetch(api, snapshot) { api throws(StripeAPIError) in try await api.subscription(snapshot.id) }
        let record = try StripeInterpretation.purchase(
            fromSubscription: subscription, observedAt: try observed(event, status: subscription.status, api: api),
            origin: api == nil ? .notification : .storeAPI, tenant: tenant, settings: settings)
        let buyer = StripeInterpretation.namedUser(of: subscription) ?? ""
        let ids = [subscription.customer?.id, subscription.latestInvoice?.id].compactMap { $0 }
        return NotificationChange(
            purchase: record, ownerHints: buyer.isEmpty ? [] : [.appUserID(buyer)],
            references: ids.map {
                PurchaseReference(store: .stripe, referenceID: $0, originalTransactionID: subscription.id, appUserID: buyer)
            })
    }

    private func invoiceSettled(
        _ snapshot: StripeInvoice, paid: Bool, event: StripeEvent, api: StripeFetch?, tenant: Tenant,
        settings: StripeSettings
    ) async throws(DomainError) -> NotificationChange {
        let invoice = try await fetch(api, snapshot) { api throws(StripeAPIError) in try await api.invoice(snapshot.id) }
        guard let subscriptionID = invoice.subscriptionID else {
            return NotificationChange(note: "the invoice is not a subscription's")
        }
        var change = NotificationChange(
            references: ([invoice.id] + invoice.paymentIntentIDs).map {
                PurchaseReference(store: .stripe, referenceID: $0, originalTransactionID: subscriptionID)
            })
        if let api {
            let subscription = try await fetched { () throws(StripeAPIError) in try await api.client.subscription(subscriptionID) }
            let record = try StripeInterpretation.purchase(
                fromSubscription: subscription, observedAt: api.askedAt, origin: .storeAPI, tenant: tenant,
                settings: settings)
            change.purchase = paid ? try StripeInterpretation.charged(record, by: invoice) : record
            if paid { change.earlierPayment = try StripeInterpretation.earlierPayment(invoice, of: record) }
            // The invoice may be the first news of the subscription: its buyer is who the subscription names.
            if let buyer = StripeInterpretation.namedUser(of: subscription) { change.ownerHints = [.appUserID(buyer)] }
            return change
        }
        guard let stored = try engine.purchases.purchase(tenantID: tenant.id, store: .stripe, originalTransactionID: subscriptionID)
        else {
            change.note = "subscription \(subscriptionID.quotedForMessage) is not held yet; its own events give its state"
            return change
        }
        let at = try observed(event, api: nil)
        // Nothing new still carries the stored purchase: the invoice may name a payment a revocation waits for.
        change.purchase = paid
            ? try StripeInterpretation.charged(
                try StripeInterpretation.paid(invoice, stored: stored, observedAt: at) ?? stored, by: invoice)
            : StripeInterpretation.paymentFailed(stored: stored, observedAt: at) ?? stored
        if paid, let current = change.purchase {
            change.earlierPayment = try StripeInterpretation.earlierPayment(invoice, of: current)
        }
        change.note = "nothing new for subscription \(subscriptionID.quotedForMessage)"
        return change
    }

    private func chargeRefunded(_ snapshot: StripeCharge, event: StripeEvent, api: StripeFetch?, tenant: Tenant)
        async throws(DomainError) -> NotificationChange
    {
        let charge = try await fetch(api, snapshot) { api throws(StripeAPIError) in try await api.charge(snapshot.id) }
        guard StripeInterpretation.refundTakesBack(charge) else {
            return NotificationChange(note: "a partial refund (\(charge.amountRefunded ?? 0) of \(charge.amount ?? 0)): access kept")
        }
        return try revoke(
            paidBy: [charge.paymentIntent?.id, charge.invoice?.id].compactMap { $0 }, reason: "REFUNDED",
            at: try UnixTime(seconds: event.created, checking: "created"), tenant: tenant,
            takenBack: (charge.amountRefunded, charge.currency))
    }

    private func disputeOpened(_ snapshot: StripeDispute, event: StripeEvent, api: StripeFetch?, tenant: Tenant)
        async throws(DomainError) -> NotificationChange
    {
        let dispute = try await fetch(api, snapshot) { api throws(StripeAPIError) in try await api.dispute(snapshot.id) }
        guard StripeInterpretation.disputeTakesBack(status: dispute.status) else {
            return NotificationChange(note: "the dispute is \((dispute.status ?? "").quotedForMessage): access kept")
        }
        var paidBy = [dispute.paymentIntent?.id].compactMap { $0 }
        if paidBy.isEmpty, let api, let chargeID = dispute.charge?.id {
            let charge = try await fetched { () throws(StripeAPIError) in try await api.client.charge(chargeID) }
            paidBy = [charge.paymentIntent?.id, charge.invoice?.id].compactMap { $0 }
        }
        return try revoke(
            paidBy: paidBy, reason: "DISPUTED", at: try UnixTime(seconds: event.created, checking: "created"),
            tenant: tenant, takenBack: (dispute.amount, dispute.currency))
    }

    /// The purchase a refunded or disputed payment paid for, revoked, with what was taken back (the revenue ledger's
    /// refund or chargeback). When no held purchase is named by the payment yet (its checkout or invoice comes
    /// later), the revocation waits for it.
    private func revoke(
        paidBy ids: [String], reason: String, at time: UnixTime, tenant: Tenant,
        takenBack: (amount: Int64?, currency: String?)
    ) throws(DomainError) -> NotificationChange {
        for id in ids {
            var purchaseIDs = try engine.purchases.purchaseReferences(tenantID: tenant.id, store: .stripe, referenceID: id)
                .map(\.originalTransactionID)
            purchaseIDs.append(id)
            for purchaseID in purchaseIDs {
                guard let stored = try engine.purchases.purchase(tenantID: tenant.id, store: .stripe, originalTransactionID: purchaseID)
                else { continue }
                guard let revoked = StripeInterpretation.revoking(stored, at: time, reason: reason) else {
                    return NotificationChange(note: "\(purchaseID.quotedForMessage) was revoked already")
                }
                return NotificationChange(
                    purchase: StripeInterpretation.refunding(
                        revoked, amount: takenBack.amount, currency: takenBack.currency))
            }
        }
        return NotificationChange(
            pendingRevocations: ids.map { PendingRevocation(store: .stripe, referenceID: $0, revokedAt: time, reason: reason) },
            note: "no held purchase was paid by \(ids.map(\.quotedForMessage).joined(separator: ", ")) yet: the revocation waits for it")
    }

    // MARK: Fetching

    /// The object as Stripe's API shows it now, or the event's snapshot when the tenant has no API key.
    private func fetch<Object>(
        _ api: StripeFetch?, _ snapshot: Object, _ get: (StripeAPI) async throws(StripeAPIError) -> Object
    ) async throws(DomainError) -> Object {
        guard let api else { return snapshot }
        return try await fetched { () throws(StripeAPIError) in try await get(api.client) }
    }

    private func fetched<Object>(_ get: () async throws(StripeAPIError) -> Object) async throws(DomainError) -> Object {
        do {
            return try await get()
        } catch {
            // Even a 404: the event is signed, so the object exists, and a key that cannot see it (another
            // account's or mode's) is the tenant's to fix; Stripe delivers the event again meanwhile.
            throw .storeUnavailable(error.message)
        }
    }
}

/// The tenant's Stripe API for one event, and when the event's fetches began. An answer shows the object as of no
/// earlier than that, so it is the data's ordering clock: a fetch that answers late with older data loses to one
/// sent after it, whatever order they commit in.
private struct StripeFetch {
    let client: StripeAPI
    let askedAt: UnixTime
}
