import AppStore
import BoundedText
import Encodings
public import EntitlementDomain
public import RPCCore

/// App Store Server Notifications V2: `POST /v1/apple/notifications/{tenant_id}` with `{"signedPayload": "..."}`.
///
/// Verified like every signed App Store datum (the nested transaction and renewal info separately), applied once
/// per `notificationUUID`, and acknowledged with 200 only once the change is committed. The reply to a failure is
/// ``NotificationReply/status(for:)``'s, as at every store: 4xx naming the failed check when a retry cannot fix it,
/// 5xx when our side (storage, the tenant's settings) or Apple's fails, so Apple delivers again.
public struct AppStoreNotifications: Sendable {
    public static let maxBodyBytes = 64 * 1024

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
        await NotificationReply.logged("app store notification", tenantID: tenantID, log: log) {
            () throws(NotificationReply) in
            do throws(DomainError) {
                return try await apply(tenantID: tenantID, body: body)
            } catch {
                throw NotificationReply(error)
            }
        }
    }

    private func apply(tenantID: String, body: [UInt8]) async throws(DomainError) -> NotificationReply {
        guard body.count <= Self.maxBodyBytes else {
            return .tooLarge(limit: Self.maxBodyBytes)
        }
        guard let tenant = tenants.directory.tenant(id: tenantID), let settings = tenant.appStore else {
            throw .notFound("No tenant \(tenantID.quotedForMessage) accepts App Store notifications.")
        }
        guard let token = Self.signedPayload(in: body), !token.isEmpty else {
            throw .malformedPayload("The body must be a JSON object with a non-empty string \"signedPayload\".")
        }
        let (outcome, reason, signedAt) = try await apply(token, tenant: tenant, settings: settings)
        var reply = NotificationReply(outcome, reason: reason)
        reply.signedAt = signedAt
        return reply
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

    /// Verifies one signed notification and applies it once per `notificationUUID`; returns what it did and the
    /// reason recorded. `recovered`: it comes from Apple's notification history (reconciliation), and the reason says
    /// so.
    func apply(_ token: String, tenant: Tenant, settings: AppStoreSettings, recovered: Bool = false)
        async throws(DomainError) -> (StoreNotificationOutcome, reason: String, signedAt: UnixTime?)
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
        let signedAt = try UnixTime.checked(milliseconds: notification.signedDate, field: "signedDate")
        if try engine.isNotificationProcessed(tenantID: tenant.id, notificationID: notificationID) {
            return (.duplicate, reason, signedAt)
        }
        var record: StorePurchase?
        if let transaction, !AppStoreInterpretation.isInformational(type) {
            record = try AppStoreInterpretation.purchase(
                from: transaction, renewal: renewal, notification: notification, tenant: tenant, settings: settings)
        }
        if let record, let revokedAt = record.revokedAt, revokedAt > engine.now() {
            log.warning(
                "revocation dated ahead of the server clock: access ends now",
                ["tenant": tenant.id, "original_transaction_id": record.originalTransactionID,
                 "ahead_ms": String(revokedAt.milliseconds - engine.now().milliseconds)])
        }
        let outcome = try await engine.applyStoreNotification(
            tenantID: tenant.id, notificationID: notificationID, transaction: record, reason: reason)
        return (outcome, reason, signedAt)
    }
}
