import EntitlementDomain
import EntitlementStorage
import EntitlementsProto
import ProtobufWire

/// Domain values in the API's messages.
extension CustomerStatus {
    init(_ state: CustomerState, serverTime: UnixTime) {
        self.init()
        appUserID = state.appUserID
        version = state.version
        status = SubscriptionStatus(state.status)
        self.serverTime = ProtoTimestamp(unixMilliseconds: serverTime.milliseconds)
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
        source = Store(rawValue: value.source.rawValue)
        productID = value.productID
        expiresAt = value.expiresAt.map { ProtoTimestamp(unixMilliseconds: $0.milliseconds) }
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
        startsAt = ProtoTimestamp(unixMilliseconds: record.startsAt.milliseconds)
        expiresAt = record.expiresAt.map { ProtoTimestamp(unixMilliseconds: $0.milliseconds) }
        revokedAt = record.revokedAt.map { ProtoTimestamp(unixMilliseconds: $0.milliseconds) }
        reason = record.reason
        revocationReason = record.revocationReason
    }
}

extension CustomerEvent {
    init(_ event: RecordedEvent) {
        self.init()
        version = event.version
        cause = Cause(rawValue: event.cause?.rawValue ?? 0)
        change = StatusEvent.Kind(rawValue: event.change?.rawValue ?? 0)
        reason = event.reason
        occurredAt = ProtoTimestamp(unixMilliseconds: event.occurredAt.milliseconds)
        status = SubscriptionStatus(event.status)
        relatedAppUserID = event.relatedAppUserID
        referenceID = event.referenceID
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
    init(_ record: TransactionRecord, ownerAppUserID: String) {
        self.init()
        store = Store(rawValue: record.store)
        productID = record.productID
        originalTransactionID = record.originalTransactionID
        transactionID = record.transactionID
        environment =
            switch record.environment {
            case "Production": .production
            case "Sandbox": .sandbox
            case "Xcode": .xcode
            case "LocalTesting": .localTesting
            default: .unspecified
            }
        let timestamp = { (time: UnixTime) in ProtoTimestamp(unixMilliseconds: time.milliseconds) }
        purchasedAt = timestamp(record.purchasedAt)
        originalPurchaseAt = record.originalPurchaseAt.map(timestamp)
        expiresAt = record.expiresAt.map(timestamp)
        revokedAt = record.revokedAt.map(timestamp)
        revocationReason = record.revocationReason
        self.ownerAppUserID = ownerAppUserID
        ownership = record.ownership == "FAMILY_SHARED" ? .familyShared : .purchased
        willRenew = record.willRenew
        inGracePeriod = record.inGracePeriod
        inBillingRetry = record.inBillingRetry
    }
}
