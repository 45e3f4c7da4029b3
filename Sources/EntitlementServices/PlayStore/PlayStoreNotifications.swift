import BoundedText
public import EntitlementDomain
import Encodings
import Foundation
import GooglePlay
import GooglePlayAPI
public import RPCCore

/// Google Play Real-time Developer Notifications: Pub/Sub pushes to `POST /v1/google/notifications/{tenant_id}`.
///
/// The push's OIDC token is verified first (nothing is read before it passes). A notification says only that a
/// token changed, so each one fetches the purchase from Google again and applies what Google says now, once per
/// Pub/Sub `messageId`. 2xx only once that is committed, or for a notification about nothing this server acts on;
/// otherwise ``NotificationReply/status(for:)``'s reply, as at every store (5xx when Google, storage or the tenant's
/// settings fail, so Pub/Sub redelivers; 401/403 for a bad token and 400 for a malformed push, nothing applied).
public struct PlayStoreNotifications: Sendable {
    public static let maxBodyBytes = 64 * 1024

    let engine: CustomerEngine
    let tenants: TenantRegistry
    let purchases: PlayStorePurchases
    let pushTokens: PushTokenVerifiers
    let acknowledger: PlayAcknowledger?
    let log: Logger

    public init(
        engine: CustomerEngine, tenants: TenantRegistry, purchases: PlayStorePurchases, pushTokens: PushTokenVerifiers,
        acknowledger: PlayAcknowledger?, log: Logger
    ) {
        self.engine = engine
        self.tenants = tenants
        self.purchases = purchases
        self.pushTokens = pushTokens
        self.acknowledger = acknowledger
        self.log = log
    }

    public func receive(tenantID: String, authorization: String?, body: [UInt8]) async -> NotificationReply {
        await NotificationReply.logged("play notification", tenantID: tenantID, log: log) { () throws(NotificationReply) in
            try await apply(tenantID: tenantID, authorization: authorization, body: body)
        }
    }

    private func apply(tenantID: String, authorization: String?, body: [UInt8]) async throws(NotificationReply) -> NotificationReply {
        guard body.count <= Self.maxBodyBytes else {
            throw .tooLarge(limit: Self.maxBodyBytes)
        }
        guard let tenant = tenants.directory.tenant(id: tenantID), let settings = tenant.playStore,
            let notifications = settings.notifications
        else {
            throw NotificationReply(.notFound("No tenant \(tenantID.quotedForMessage) accepts Google Play notifications."))
        }
        if notifications.verifiesPushTokens {
            try await verifyPush(authorization: authorization, settings: notifications)
        }
        let (messageID, notification, otherFields) = try Self.decode(body)
        try Self.checkShape(notification, otherFields: otherFields)
        guard notification.packageName == settings.packageName else {
            throw NotificationReply(.invalidRequest(
                "The notification is for package \((notification.packageName ?? "(none)").quotedForMessage), not this tenant's \(settings.packageName.quotedForMessage)."))
        }
        let notifiedAt: UnixTime?
        do throws(DomainError) {
            notifiedAt = try UnixTime.checked(
                milliseconds: GooglePlayTime.milliseconds(decimal: notification.eventTimeMillis), field: "eventTimeMillis")
        } catch {
            throw NotificationReply(.malformedPayload("The notification's \(error.message)"))
        }
        do throws(DomainError) {
            var reply = try await dispatch(
                notification, messageID: messageID, notifiedAt: notifiedAt, tenant: tenant, settings: settings)
            reply.signedAt = notifiedAt
            return reply
        } catch where error.code == .notApplicable {
            // Google does not confirm the token, or a kind of notification this server does not know: every
            // redelivery would meet the same answer. The next fetch of the token (a later notification, the device's
            // Purchase, RefreshStorePurchase) applies it once that changes.
            return await NotificationReply.notApplied(
                error, engine: engine, tenantID: tenant.id, notificationID: Self.notificationID(messageID),
                cause: .playStoreNotification)
        } catch {
            throw NotificationReply(error)
        }
    }

    private func verifyPush(authorization: String?, settings: PlayNotificationSettings) async throws(NotificationReply) {
        let verifier: PushTokenVerifier
        do throws(DomainError) {
            verifier = try pushTokens.verifier(for: settings.signingKeys)
        } catch {
            throw NotificationReply(error)
        }
        let expected = PushTokenExpectations(audience: settings.audience, serviceAccountEmail: settings.pushServiceAccount)
        guard case .failure(let error) = await verifier.verify(
            authorization: authorization, expecting: expected, now: engine.now().milliseconds)
        else { return }
        let message = "The push token was refused (\(error.code.rawValue)): \(error.message)"
        let refusal: DomainError =
            switch error.code {
            case .keysUnavailable: .storeUnavailable(message)
            case .wrongIssuer, .wrongAudience, .wrongEmail, .emailNotVerified: .permissionDenied(message)
            case .missing, .malformed, .unknownKey, .badSignature, .expired, .notYetValid: .unauthenticated(message)
            }
        throw NotificationReply(refusal)
    }

    /// The envelope fields every notification has; any other is a kind of notification.
    static let commonFields: Set<String> = ["version", "packageName", "eventTimeMillis"]

    /// The Pub/Sub envelope, the notification in its `message.data`, and the names of that notification's fields
    /// other than ``commonFields`` (its kind, known or not).
    static func decode(_ body: [UInt8]) throws(NotificationReply)
        -> (messageID: String, notification: DeveloperNotification, otherFields: Set<String>)
    {
        func malformed(_ message: String) -> NotificationReply { NotificationReply(.malformedPayload(message)) }
        guard let envelope = try? JSONDecoder().decode(PubSubPushEnvelope.self, from: Data(body)), let message = envelope.message
        else {
            throw malformed("The body is not a Pub/Sub push: a JSON object with a \"message\" object.")
        }
        guard let messageID = message.messageId ?? message.message_id, !messageID.isEmpty, messageID.utf8.count <= 256 else {
            throw malformed("The Pub/Sub message has no messageId.")
        }
        guard let data = message.data, let decoded = Base64.decode(data, padding: .optional) else {
            throw malformed("The Pub/Sub message's data is missing or not base64.")
        }
        guard let notification = try? JSONDecoder().decode(DeveloperNotification.self, from: Data(decoded)) else {
            throw malformed("The Pub/Sub message's data is not a JSON Real-time Developer Notification.")
        }
        let fields = (try? JSONSerialization.jsonObject(with: Data(decoded)) as? [String: Any]).map { Set($0.keys) } ?? []
        return (messageID, notification, fields.subtracting(commonFields))
    }

    /// A notification without the fields its kind needs, or of no kind at all, is malformed: 400, like a malformed
    /// envelope, so nothing is applied and its message ID stays unused (rather than acknowledged as "not applied",
    /// which suits answers Google gives about a well-formed one). A kind this server does not know (`otherFields`
    /// names one) is not malformed: Google adds kinds, and it is acknowledged, not applied, further on.
    static func checkShape(_ notification: DeveloperNotification, otherFields: Set<String>) throws(NotificationReply) {
        do throws(DomainError) {
            if let subscription = notification.subscriptionNotification {
                _ = try token(subscription.purchaseToken)
            } else if let product = notification.oneTimeProductNotification {
                _ = try token(product.purchaseToken)
                guard let sku = product.sku, !sku.isEmpty else {
                    throw .malformedPayload("The oneTimeProductNotification has no sku.")
                }
                try PlayStorePurchases.checkProductID(sku, field: "oneTimeProductNotification.sku")
            } else if let voided = notification.voidedPurchaseNotification {
                _ = try token(voided.purchaseToken)
            } else if notification.testNotification == nil, otherFields.isEmpty {
                throw .malformedPayload(
                    "The notification holds none of subscriptionNotification, oneTimeProductNotification, voidedPurchaseNotification, testNotification.")
            }
        } catch {
            throw NotificationReply(error)
        }
    }

    /// Pub/Sub message IDs, kept apart from Apple's notification UUIDs.
    static func notificationID(_ messageID: String) -> String { "play:" + messageID }

    private func dispatch(
        _ notification: DeveloperNotification, messageID: String, notifiedAt: UnixTime?, tenant: Tenant,
        settings: PlayStoreSettings
    ) async throws(DomainError) -> NotificationReply {
        let id = Self.notificationID(messageID)
        let record: StorePurchase?
        let hints: [OwnerHint]
        let reason: String
        if let subscription = notification.subscriptionNotification {
            let token = try Self.token(subscription.purchaseToken)
            let type = subscription.notificationType.flatMap(SubscriptionNotificationType.init(rawValue:))
            reason = type?.name ?? "SUBSCRIPTION_NOTIFICATION_\(subscription.notificationType.map(String.init) ?? "UNKNOWN")"
            (record, hints) = try await purchases.subscription(
                token: token, tenant: tenant, notification: type, notifiedAt: notifiedAt)
        } else if let product = notification.oneTimeProductNotification {
            let token = try Self.token(product.purchaseToken)
            guard let sku = product.sku, !sku.isEmpty else {
                throw .malformedPayload("The oneTimeProductNotification has no sku.")
            }
            try PlayStorePurchases.checkProductID(sku, field: "oneTimeProductNotification.sku")
            reason = product.notificationType == 2 ? "ONE_TIME_PRODUCT_CANCELED" : "ONE_TIME_PRODUCT_PURCHASED"
            record = try await purchases.product(productID: sku, token: token, tenant: tenant, origin: .notification)
            hints = []
        } else if let voided = notification.voidedPurchaseNotification {
            let token = try Self.token(voided.purchaseToken)
            reason = voided.refundType == 2 ? "VOIDED_PURCHASE_PARTIAL" : "VOIDED_PURCHASE"
            record = try await voidedRecord(
                token: token, orderID: voided.orderId, partial: voided.refundType == 2, tenant: tenant,
                voidedAt: notifiedAt ?? engine.now())
            hints = []
        } else if notification.testNotification != nil {
            record = nil
            hints = []
            reason = "TEST_NOTIFICATION"
        } else {
            throw .notApplicable("The notification is of a kind this server does not act on yet.")
        }
        let outcome = try await engine.applyStoreNotification(
            tenantID: tenant.id, notificationID: id, transaction: record, reason: reason, cause: .playStoreNotification,
            ownerHints: hints)
        if record?.acknowledgement.state == .pending { acknowledger?.wake() }
        return NotificationReply(outcome, reason: reason)
    }

    static func token(_ token: String?) throws(DomainError) -> String {
        let token = token ?? ""
        try PlayStorePurchases.checkToken(token, field: "purchaseToken")
        return token
    }
}
