public import Foundation

/// The device's own store data: what the platform's store says the user owns now, and every transaction as it
/// arrives (a purchase, a renewal, a refund or revocation of one already seen). The SDK ORs it into the server's
/// status, so a user who paid keeps access while the server is slow or unreachable, and forwards each transaction
/// to the server, finishing it only once the server accepted it. On Apple platforms ``StoreKitEntitlementSource``
/// reads StoreKit 2.
public protocol LocalEntitlementSource: Sendable {
    /// The transactions that entitle the user now (StoreKit's `Transaction.currentEntitlements`).
    func currentEntitlements() async -> [LocalTransaction]
    /// Every transaction from now on (StoreKit's `Transaction.updates`), including unfinished ones from earlier
    /// runs; the SDK starts reading it when it starts.
    func transactionUpdates() -> AsyncStream<LocalTransaction>
    /// Called once the server accepted the transaction (StoreKit's `Transaction.finish()`).
    func finish(_ transaction: LocalTransaction) async
}

/// One transaction as the device's store reports it. Its description leaves the signed transaction out, so it can
/// be logged.
public struct LocalTransaction: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    public var transactionID: String
    public var originalTransactionID: String
    public var productID: String
    /// nil: does not expire (a non-consumable).
    public var expiresAt: Date?
    /// When the store refunded or revoked it; nil while it stands.
    public var revokedAt: Date?
    /// The user upgraded to another product of the group: this one grants nothing any more.
    public var isUpgraded: Bool
    /// What the server verifies: the App Store's JWS (`VerificationResult.jwsRepresentation`). Never logged.
    public var signedTransaction: String

    public init(
        transactionID: String, originalTransactionID: String, productID: String, expiresAt: Date?, revokedAt: Date?,
        isUpgraded: Bool = false, signedTransaction: String
    ) {
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.productID = productID
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
        self.isUpgraded = isUpgraded
        self.signedTransaction = signedTransaction
    }

    /// Whether it entitles the user at `now`.
    public func isActive(at now: Date) -> Bool {
        revokedAt == nil && !isUpgraded && (expiresAt.map { $0 > now } ?? true)
    }

    public var description: String {
        "LocalTransaction(\(transactionID), original \(originalTransactionID), \(productID)"
            + (expiresAt.map { ", expires \($0)" } ?? "") + (revokedAt.map { ", revoked \($0)" } ?? "")
            + (isUpgraded ? ", upgraded" : "") + ")"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(self, children: [
            "transactionID": transactionID, "originalTransactionID": originalTransactionID, "productID": productID,
            "expiresAt": expiresAt as Any, "revokedAt": revokedAt as Any, "isUpgraded": isUpgraded,
        ])
    }

    /// What makes two reports of a transaction the same for forwarding: a refund of a transaction already
    /// forwarded has the same ID but a revocation date, so it is forwarded again.
    var forwardingKey: String {
        "\(transactionID)|\(revokedAt.map { "\($0.timeIntervalSince1970)" } ?? "")|\(expiresAt.map { "\($0.timeIntervalSince1970)" } ?? "")|\(isUpgraded)"
    }
}
