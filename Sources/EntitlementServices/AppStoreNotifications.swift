import AppStore
import BoundedText
import Encodings
public import EntitlementDomain
public import RPCCore

/// App Store Server Notifications V2: `POST /v1/apple/notifications/{tenant_id}` with `{"signedPayload": "..."}`, through
/// the one ``StoreNotificationEndpoint``.
///
/// Verified like every signed App Store datum (the nested transaction and renewal info separately), applied once
/// per `notificationUUID`, and acknowledged with 200 only once the change is committed. The reply to a failure is
/// ``NotificationReply/status(for:)``'s, as at every store: 4xx naming the failed check when a retry cannot fix it,
/// 5xx when our side (storage, the tenant's settings) or Apple's fails, so Apple delivers again.
public struct AppStoreNotifications: StoreNotificationSource {
    public static let maxBodyBytes = 64 * 1024
    static let logName = "app store notification"
    static let accepted = "App Store notifications"
    static let cause = EventCause.appStoreNotification

    let engine: CustomerEngine
    let tenants: TenantRegistry
    let purchases: AppStorePurchases
    let log: Logger

    public init(engine: CustomerEngine, tenants: TenantRegistry, purchases: AppStorePurchases, log: Logger) {
        self.engine = engine
        self.tenants = tenants
        self.purchases = purchases
        self.log = log
    }

    public func receive(tenantID: String, body: [UInt8]) async -> NotificationReply {
        await StoreNotificationEndpoint(source: self).receive(
            StoreNotificationRequest(tenantID: tenantID, credential: nil, body: body))
    }

    func settings(of tenant: Tenant) -> AppStoreSettings? { tenant.appStore }

    /// The notification and the transaction and renewal info it carries, each verified.
    struct Verified: Sendable {
        var notification: NotificationPayload
        var transaction: JWSTransaction?
        var renewal: JWSRenewalInfo?
    }

    func read(_ request: StoreNotificationRequest, tenant: Tenant, settings: AppStoreSettings)
        async throws(DomainError) -> ReceivedNotification<Verified>
    {
        guard let token = Self.signedPayload(in: request.body), !token.isEmpty else {
            throw .malformedPayload("The body must be a JSON object with a non-empty string \"signedPayload\".")
        }
        return try read(token, tenant: tenant, settings: settings)
    }

    /// The body's `signedPayload` string; nil when the body is not a JSON object with one.
    static func signedPayload(in body: [UInt8]) -> String? {
        try? JSONReader.read(body) { reader throws(JSONReadError) in
            var token: String?
            try reader.readObject { reader, key throws(JSONReadError) in
                if key == "signedPayload" {
                    token = try reader.optionalString()
                } else {
                    try reader.skipValue()
                }
            }
            return token
        }
    }

    /// One signed notification verified and read. `recovered`: it comes from Apple's notification history
    /// (reconciliation), and the reason says so.
    func read(_ token: String, tenant: Tenant, settings: AppStoreSettings, recovered: Bool = false)
        throws(DomainError) -> ReceivedNotification<Verified>
    {
        let (data, claimed) = try AppStorePurchases.unverified(token, as: NotificationPayload.self)
        let verifier = try purchases.verifier(for: tenant, settings: settings, claimed: claimed)
        // Each signed part is verified on its own; a failure names the part and the check.
        func verified<Payload>(_ subject: String, _ body: () throws(AppStoreVerificationError) -> Payload)
            throws(DomainError) -> Payload
        {
            do throws(AppStoreVerificationError) {
                return try body()
            } catch {
                throw AppStorePurchases.domainError(error, subject: subject)
            }
        }
        let notification = try verified("notification") { () throws(AppStoreVerificationError) in
            try verifier.verifyNotification(data)
        }
        let transaction = try notification.data?.signedTransactionInfo.map { signed throws(DomainError) in
            try verified("signedTransactionInfo") { () throws(AppStoreVerificationError) in
                try verifier.verifyTransaction(signed)
            }
        }
        let renewal = try notification.data?.signedRenewalInfo.map { signed throws(DomainError) in
            try verified("signedRenewalInfo") { () throws(AppStoreVerificationError) in
                try verifier.verifyRenewalInfo(signed)
            }
        }
        if let transaction, let renewal, renewal.originalTransactionId != transaction.originalTransactionId {
            throw .malformedPayload(
                "The signedRenewalInfo is for original transaction \(renewal.originalTransactionId ?? "(none)"), "
                    + "the signedTransactionInfo for \(transaction.originalTransactionId ?? "(none)").")
        }
        guard let notificationID = notification.notificationUUID, !notificationID.isEmpty else {
            throw .malformedPayload("The notification has no notificationUUID.")
        }
        let type = notification.notificationType?.rawValue ?? "UNKNOWN"
        var reason = notification.subtype.map { "\(type)/\($0.rawValue)" } ?? type
        if recovered { reason += ", recovered from Apple's notification history" }
        return ReceivedNotification(
            id: notificationID, reason: reason,
            signedAt: try UnixTime.checked(milliseconds: notification.signedDate, field: "signedDate"),
            notification: Verified(notification: notification, transaction: transaction, renewal: renewal))
    }

    func change(of received: ReceivedNotification<Verified>, tenant: Tenant, settings: AppStoreSettings)
        throws(DomainError) -> NotificationChange
    {
        let verified = received.notification
        let type = verified.notification.notificationType?.rawValue ?? "UNKNOWN"
        guard let transaction = verified.transaction, !AppStoreInterpretation.isInformational(type) else {
            return NotificationChange()
        }
        let purchase = try AppStoreInterpretation.purchase(
            from: transaction, renewal: verified.renewal, notification: verified.notification, tenant: tenant,
            settings: settings)
        if let revokedAt = purchase.revokedAt, revokedAt > engine.now() {
            log.warning(
                "revocation dated ahead of the server clock: access ends now",
                ["tenant": tenant.id, "original_transaction_id": purchase.originalTransactionID,
                 "ahead_ms": String(revokedAt.milliseconds - engine.now().milliseconds)])
        }
        return NotificationChange(purchase: purchase)
    }

    /// A notification from Apple's notification history, applied as a delivered one is: what it did, and the
    /// reason recorded.
    func applyRecovered(_ token: String, tenant: Tenant, settings: AppStoreSettings)
        async throws(DomainError) -> StoreNotificationOutcome
    {
        let received = try read(token, tenant: tenant, settings: settings, recovered: true)
        return try await StoreNotificationEndpoint(source: self).apply(received, tenant: tenant, settings: settings).0
    }
}
