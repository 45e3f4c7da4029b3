import AppStore
import BoundedText
import Encodings
public import EntitlementDomain
public import RPCCore

/// App Store Server Notifications V2: `POST /v1/apple/notifications/{tenant_id}` with `{"signedPayload": "..."}`.
///
/// Verified like every signed App Store datum (the nested transaction and renewal info separately), applied once
/// per `notificationUUID`, and acknowledged with 200 only once the change is committed. A notification that fails
/// verification or is malformed gets 4xx naming the failed check (a retry cannot fix it); a failure on our side gets
/// 5xx so Apple retries.
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
        let reply: NotificationReply
        do throws(DomainError) {
            reply = try await apply(tenantID: tenantID, body: body)
        } catch {
            let status =
                switch error.code {
                case .unavailable, .internalError: 500
                case .notFound: 404
                default: 400
                }
            reply = NotificationReply(status: status, message: error.message)
        }
        log.info(
            "app store notification",
            ["tenant": tenantID, "status": String(reply.status), "result": reply.message])
        return reply
    }

    private func apply(tenantID: String, body: [UInt8]) async throws(DomainError) -> NotificationReply {
        guard body.count <= Self.maxBodyBytes else {
            return NotificationReply(status: 413, message: "The body is larger than \(Self.maxBodyBytes) bytes.")
        }
        guard let tenant = tenants.directory.tenant(id: tenantID), let settings = tenant.appStore else {
            throw .notFound("No tenant \(tenantID.quotedForMessage) accepts App Store notifications.")
        }
        guard let token = Self.signedPayload(in: body), !token.isEmpty else {
            throw .invalidArgument("The body must be a JSON object with a non-empty string \"signedPayload\".")
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
            throw .invalidArgument(
                "The signedRenewalInfo is for original transaction \(renewal.originalTransactionId ?? "(none)"), "
                    + "the signedTransactionInfo for \(transaction.originalTransactionId ?? "(none)").")
        }
        guard let notificationID = notification.notificationUUID, !notificationID.isEmpty else {
            throw .invalidArgument("The notification has no notificationUUID.")
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
            do throws(DomainError) {
                record = try AppStoreInterpretation.purchase(
                    from: transaction, renewal: renewal, notification: notification, tenant: tenant,
                    settings: settings)
            } catch where error.code == .failedPrecondition {
                // The app's settings cannot place the product (no type, no duration): ours to fix, Apple's to retry.
                throw .unavailable("The app's App Store settings: \(error.message)")
            }
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
