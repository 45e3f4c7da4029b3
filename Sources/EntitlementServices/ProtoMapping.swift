import AppStoreServerAPI
import EntitlementDomain
import EntitlementsProto
import ProtobufWire

/// Domain values in the API's messages.
extension ProtoTimestamp {
    init(_ time: UnixTime) {
        self.init(unixMilliseconds: time.milliseconds)
    }

    /// A request's timestamp `field` as a domain time; INVALID_ARGUMENT outside what a Timestamp may hold.
    func requestTime(field: String) throws(DomainError) -> UnixTime {
        guard let unixMilliseconds else {
            throw .invalidRequest(
                "\(field) must lie between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z with nanos in 0...999999999; "
                    + "got seconds \(seconds), nanos \(nanos).")
        }
        return UnixTime(milliseconds: unixMilliseconds)
    }
}

extension ProtoDuration {
    /// A request's duration `field` in whole milliseconds (truncated toward zero); INVALID_ARGUMENT naming the field
    /// and `allowed` when it is not a valid Duration or falls outside. Every request duration goes through this:
    /// its seconds are never scaled before they are known to fit.
    func requestMilliseconds(field: String, allowed: ClosedRange<Int64>) throws(DomainError) -> Int64 {
        guard let milliseconds, allowed.contains(milliseconds) else {
            throw .invalidRequest(
                "\(field) must be \(Self.secondsText(allowed.lowerBound)) to \(Self.secondsText(allowed.upperBound)) "
                    + "seconds, with nanos of the same sign and within ±999999999; got seconds \(seconds), nanos \(nanos).")
        }
        return milliseconds
    }

    /// Milliseconds as seconds for a message: `60`, `0.001`, `-1.5`.
    private static func secondsText(_ milliseconds: Int64) -> String {
        let (whole, fraction) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        guard fraction != 0 else { return String(whole) }
        var digits = String(fraction.magnitude + 1000).dropFirst()
        while digits.last == "0" { digits.removeLast() }
        return (milliseconds < 0 && whole == 0 ? "-" : "") + "\(whole).\(digits)"
    }
}

extension CustomerStatus {
    init(_ state: CustomerState, serverTime: UnixTime) {
        self.init(state)
        self.serverTime = ProtoTimestamp(serverTime)
    }

    /// Everything but the server time.
    init(_ state: CustomerState) {
        self.init()
        appUserID = state.appUserID
        version = state.version
        status = SubscriptionStatus(state.status)
    }
}

extension SubscriptionStatus {
    init(_ status: ComputedStatus) {
        self.init()
        state = status.isActive ? .active : .inactive
        entitlements = status.entitlements.map(ActiveEntitlement.init)
    }
}

extension ActiveEntitlement {
    init(_ value: ActiveEntitlementValue) {
        self.init()
        id = value.id
        source = EntitlementsProto.Store(value.source)
        productID = value.productID
        expiresAt = value.expiresAt.map(ProtoTimestamp.init)
        willRenew = value.willRenew
        inGracePeriod = value.inGracePeriod
        inBillingRetry = value.inBillingRetry
    }
}

extension Grant {
    init(_ record: GrantRecord, appUserID: String) {
        self.init()
        grantID = record.grantID
        self.appUserID = appUserID
        entitlementID = record.entitlementID
        startsAt = ProtoTimestamp(record.startsAt)
        expiresAt = record.expiresAt.map(ProtoTimestamp.init)
        revokedAt = record.revokedAt.map(ProtoTimestamp.init)
        reason = record.reason
        revocationReason = record.revocationReason
    }
}

extension CustomerEvent {
    init(_ event: RecordedEvent) {
        self.init()
        version = event.version
        cause = Cause(event.cause)
        change = StatusEvent.Kind(event.change)
        reason = event.reason
        occurredAt = ProtoTimestamp(event.occurredAt)
        status = SubscriptionStatus(event.status)
        relatedAppUserID = event.relatedAppUserID
        referenceID = event.referenceID
        keyName = event.keyName
    }
}

extension StatusEvent {
    init(_ update: StatusUpdate, serverTime: UnixTime) {
        self.init()
        switch update.kind {
        case .snapshot: kind = .snapshot
        case .changed(.statusChanged): kind = .statusChanged
        case .changed(.customerInfoChanged): kind = .customerInfoChanged
        }
        customer = CustomerStatus(update.state, serverTime: serverTime)
        reason = update.reason
    }
}

extension Transaction {
    init(_ record: StorePurchase, ownerAppUserID: String) {
        self.init()
        store = EntitlementsProto.Store(record.store)
        productID = record.productID
        originalTransactionID = record.originalTransactionID
        transactionID = record.transactionID
        environment = StoreEnvironment(record.environment)
        purchasedAt = ProtoTimestamp(record.purchasedAt)
        originalPurchaseAt = record.originalPurchaseAt.map(ProtoTimestamp.init)
        expiresAt = record.expiresAt.map(ProtoTimestamp.init)
        revokedAt = record.revokedAt.map(ProtoTimestamp.init)
        revocationReason = record.revocationReason
        self.ownerAppUserID = ownerAppUserID
        ownership = Ownership(record.ownership)
        willRenew = record.renews
        inGracePeriod = record.renewal.inGracePeriod
        inBillingRetry = record.renewal.inBillingRetry
        renewalProductID = record.renewalProductID
        supersededBy = record.supersededBy
        replaces = record.replaces
        acknowledgement = Transaction.Acknowledgement(record.acknowledgement.state)
        acknowledgementAttempts = Int32(clamping: record.acknowledgement.attempts)
        acknowledgementError = record.acknowledgement.lastError
        suspended = record.renewal.isHeld
    }
}

extension PurchaseResult {
    /// The token's purchase (`record`, before it was applied) and what applying it did.
    init(_ record: StorePurchase, applied: AppliedStorePurchase) {
        self.init()
        store = EntitlementsProto.Store(record.store)
        productID = record.productID
        originalTransactionID = record.originalTransactionID
        transactionID = record.transactionID
        environment = StoreEnvironment(record.environment)
        purchasedAt = ProtoTimestamp(record.purchasedAt)
        expiresAt = record.expiresAt.map(ProtoTimestamp.init)
        revokedAt = record.revokedAt.map(ProtoTimestamp.init)
        outcome =
            switch applied.outcome {
            case .new: .new
            case .updated: .updated
            case .unchanged: .unchanged
            case .olderThanStored: .olderThanStored
            }
        active = applied.grantsAccess
        entitlementIDs = record.entitlementIDs
        transferredFromAppUserID = applied.transferredFrom ?? ""
        claimed = applied.claimed
    }
}

extension PurchaseResponse {
    /// A redeemed web purchase, as Purchase answers it.
    init(_ redemption: Redemption, serverTime: UnixTime) {
        self.init()
        customer = CustomerStatus(redemption.outcome.state, serverTime: serverTime)
        transferredFromAppUserID = redemption.outcome.transferredFrom.first ?? ""
        result = redemption.outcome.purchases.first.map { PurchaseResult(redemption.purchase, applied: $0) }
    }
}

extension AppStoreHistoryResult {
    /// What a Restore read from Apple's history, with the results of its purchases as attached.
    init(_ history: AppStoreHistory, purchases: [PurchaseResult]) {
        self.init()
        transactionID = history.transactionID
        environment = history.environment == .production ? .production : .sandbox
        transactionsFound = UInt32(clamping: history.transactionsFound)
        self.purchases = purchases
    }
}
