import EntitlementsProto
import Foundation
import ProtobufWire

extension StatusSnapshot {
    /// The server's answer for the customer the SDK knows as `appUserID` (the server may name it by its canonical
    /// ID), received at `receivedAt`.
    init(_ customer: CustomerStatus, appUserID: String, receivedAt: Date) {
        let entitlements = Set((customer.status?.entitlements ?? []).map(Entitlement.init))
        let state = customer.status?.state ?? .unspecified
        self.init(
            appUserID: appUserID,
            status: state == .active && !entitlements.isEmpty ? .active(entitlements) : .inactive,
            version: customer.version, origin: .server, receivedAt: receivedAt)
    }
}

extension Entitlement {
    init(_ entitlement: ActiveEntitlement) {
        self.init(
            id: entitlement.id, source: Source(entitlement.source), productID: entitlement.productID,
            // From the two fields as they came, whatever the server sent: no Int64 product to overflow.
            expiresAt: entitlement.expiresAt.map { Date(timeIntervalSince1970: Double($0.seconds) + Double($0.nanos) / 1e9) },
            willRenew: entitlement.willRenew, inGracePeriod: entitlement.inGracePeriod,
            inBillingRetry: entitlement.inBillingRetry)
    }
}

extension Entitlement.Source {
    init(_ store: Store) {
        self =
            switch store {
            case .appStore: .appStore
            case .playStore: .playStore
            case .web: .web
            case .grant: .grant
            default: .unknown
            }
    }
}
