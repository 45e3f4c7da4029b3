import BoundedText

/// How one attempt to acknowledge a purchase to its store ended.
public enum AcknowledgementAttempt: Sendable, Hashable {
    /// The store took it (or says it was acknowledged already).
    case acknowledged
    /// It failed and is tried again at `retryAt`.
    case failed(error: String, retryAt: UnixTime)
    /// It failed and nothing more is tried: the owner is told, and an operator's refresh starts again.
    case gaveUp(error: String)
    /// The store owes nothing any more (the purchase was canceled, refunded or expired before it was acknowledged).
    case noLongerOwed
}

/// Acknowledging purchases to their store (Google refunds a purchase not acknowledged within three days): the
/// acknowledgements due, and what each attempt came to.
public final class StoreAcknowledgements: Sendable {
    let core: EngineCore
    let repository: any AcknowledgementReads

    init(core: EngineCore, repository: any AcknowledgementReads) {
        self.core = core
        self.repository = repository
    }

    /// Purchases whose acknowledgement is due now, soonest first.
    public func due(limit: Int) throws(DomainError) -> [StorePurchase] {
        let now = core.now()
        return try DomainError.reading { () throws(StorageError) in try repository.acknowledgementsDue(at: now, limit: limit) }
    }

    /// When the next pending acknowledgement is due; nil when none is pending.
    public func nextDue() throws(DomainError) -> UnixTime? {
        try DomainError.reading { () throws(StorageError) in try repository.nextAcknowledgementDue() }
    }

    /// Claims the next attempt on `purchase`'s pending acknowledgement, before it is sent: one more attempt counted,
    /// due again at `retryAt` in case its outcome is never recorded (the instance stopped mid-attempt). Nil, and
    /// nothing is to be sent, when it is no longer pending or an attempt was claimed since `purchase` was read (an
    /// instance frozen mid-batch that resumed after another took the work over). The claimed purchase's attempt count
    /// is what ``record(of:_:)`` checks.
    public func begin(_ purchase: StorePurchase, retryAt: UnixTime) async throws(DomainError) -> StorePurchase? {
        try await core.write(orderedBy: WriteOrder.purchase(of: purchase)) {
            transaction, _ throws -> (StorePurchase?, [CommittedChange]) in
            guard var stored = try transaction.purchase(
                tenantID: purchase.tenantID, store: purchase.store, originalTransactionID: purchase.originalTransactionID),
                stored.acknowledgement.state == .pending, stored.acknowledgement.attempts == purchase.acknowledgement.attempts,
                stored.acknowledgement.attempts < Int.max
            else { return (nil, []) }
            stored.acknowledgement.attempts += 1
            stored.acknowledgement.dueAt = retryAt
            try transaction.savePurchase(stored)
            return (stored, [])
        }
    }

    /// Records how the attempt claimed by ``begin(_:retryAt:)`` (`claimed`) ended. Nothing changes when the
    /// acknowledgement is no longer pending (the store's data said it was acknowledged meanwhile) or a later attempt
    /// was claimed (another instance took the work over). Giving up is an event on the owner, naming the error.
    public func record(of claimed: StorePurchase, _ attempt: AcknowledgementAttempt) async throws(DomainError) {
        try await core.write(orderedBy: WriteOrder.purchase(of: claimed)) {
            transaction, now throws -> (Void, [CommittedChange]) in
            guard var stored = try transaction.purchase(
                tenantID: claimed.tenantID, store: claimed.store, originalTransactionID: claimed.originalTransactionID),
                stored.acknowledgement.state == .pending, stored.acknowledgement.attempts == claimed.acknowledgement.attempts
            else { return ((), []) }
            let attempts = stored.acknowledgement.attempts
            switch attempt {
            case .acknowledged:
                stored.acknowledgement = PurchaseAcknowledgement(state: .acknowledged, attempts: attempts)
            case .failed(let error, let retryAt):
                stored.acknowledgement = PurchaseAcknowledgement(
                    state: .pending, attempts: attempts, dueAt: retryAt, lastError: error)
            case .gaveUp(let error):
                stored.acknowledgement = PurchaseAcknowledgement(state: .failed, attempts: attempts, lastError: error)
            case .noLongerOwed:
                stored.acknowledgement = PurchaseAcknowledgement(state: .notRequired, attempts: attempts)
            }
            try transaction.savePurchase(stored)
            guard case .gaveUp(let error) = attempt, let owner = stored.customerID else { return ((), []) }
            let change = try self.core.recordChange(
                transaction, tenantID: stored.tenantID, customerID: owner, cause: .storeAPI,
                reason: "The purchase could not be acknowledged after \(counted(attempts, "attempt")) (\(error)); the store refunds "
                    + "unacknowledged purchases. Refresh it to try again.",
                reference: stored.originalTransactionID, subject: EventSubject(purchase: stored), at: now)
            return ((), [change])
        }
    }

    /// Starts a failed acknowledgement again, due now (an operator's refresh).
    public func retry(tenantID: String, store: Store, originalTransactionID: String) async throws(DomainError) {
        try await core.write(orderedBy: WriteOrder.purchase(tenantID, store, originalTransactionID)) {
            transaction, now throws -> (Void, [CommittedChange]) in
            guard var stored = try transaction.purchase(
                tenantID: tenantID, store: store, originalTransactionID: originalTransactionID),
                stored.acknowledgement.state == .failed
            else { return ((), []) }
            stored.acknowledgement = PurchaseAcknowledgement(
                state: .pending, attempts: stored.acknowledgement.attempts, dueAt: now,
                lastError: stored.acknowledgement.lastError)
            try transaction.savePurchase(stored)
            return ((), [])
        }
    }
}
