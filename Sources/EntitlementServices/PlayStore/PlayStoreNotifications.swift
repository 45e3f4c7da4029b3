import BoundedText
public import EntitlementDomain
import Encodings
import GooglePlay
import GooglePlayAPI
public import RPCCore

/// Google Play Real-time Developer Notifications: Pub/Sub pushes to `POST /v1/google/notifications/{tenant_id}`.
///
/// The push's OIDC token is verified first (nothing is read before it passes). A notification says only that a
/// token changed, so each one fetches the purchase from Google again and applies what Google says now, once per
/// Pub/Sub `messageId`, through the one ``StoreNotificationEndpoint``. 2xx only once that is committed, or for a
/// notification about nothing this server acts on; otherwise ``NotificationReply/status(for:)``'s reply, as at every
/// store (5xx when Google, storage or the tenant's settings fail, so Pub/Sub redelivers; 401/403 for a bad token and
/// 400 for a malformed push, nothing applied).
public struct PlayStoreNotifications: StoreNotificationSource {
    public static let maxBodyBytes = 64 * 1024
    static let logName = "play notification"
    static let accepted = "Google Play notifications"
    static let cause = EventCause.playStoreNotification

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
        await StoreNotificationEndpoint(source: self).receive(
            StoreNotificationRequest(tenantID: tenantID, credential: authorization, body: body))
    }

    /// A tenant's Play settings when they take notifications.
    func settings(of tenant: Tenant) -> PlayStoreSettings? {
        tenant.playStore.flatMap { $0.notifications == nil ? nil : $0 }
    }

    func read(_ request: StoreNotificationRequest, tenant: Tenant, settings: PlayStoreSettings)
        async throws(DomainError) -> ReceivedNotification<DeveloperNotification>
    {
        if let notifications = settings.notifications, notifications.verifiesPushTokens {
            try await verifyPush(authorization: request.credential, settings: notifications)
        }
        let (messageID, notification) = try Self.decode(request.body)
        try Self.checkShape(notification)
        guard notification.packageName == settings.packageName else {
            throw .invalidRequest(
                "The notification is for package \((notification.packageName ?? "(none)").quotedForMessage), not this tenant's \(settings.packageName.quotedForMessage).")
        }
        let notifiedAt: UnixTime?
        do throws(DomainError) {
            notifiedAt = try UnixTime.checked(
                milliseconds: GooglePlayTime.milliseconds(decimal: notification.eventTimeMillis), field: "eventTimeMillis")
        } catch {
            throw .malformedPayload("The notification's \(error.message)")
        }
        return ReceivedNotification(
            id: Self.notificationID(messageID), reason: Self.reason(of: notification), signedAt: notifiedAt,
            notification: notification)
    }

    /// What the customer event records: the notification's type.
    static func reason(of notification: DeveloperNotification) -> String {
        if let subscription = notification.subscriptionNotification {
            let type = subscription.notificationType.flatMap(SubscriptionNotificationType.init(rawValue:))
            return type?.name
                ?? "SUBSCRIPTION_NOTIFICATION_\(subscription.notificationType.map(String.init) ?? "UNKNOWN")"
        } else if let product = notification.oneTimeProductNotification {
            return product.notificationType == 2 ? "ONE_TIME_PRODUCT_CANCELED" : "ONE_TIME_PRODUCT_PURCHASED"
        } else if let voided = notification.voidedPurchaseNotification {
            return voided.refundType == 2 ? "VOIDED_PURCHASE_PARTIAL" : "VOIDED_PURCHASE"
        } else if notification.testNotification != nil {
            return "TEST_NOTIFICATION"
        }
        return "UNKNOWN_NOTIFICATION"
    }

    /// What Google says now about the notification's purchase token; a kind of notification this server does not know
    /// is not applicable (Google adds kinds; refusing one would have Pub/Sub redeliver it for days to no end).
    func change(of received: ReceivedNotification<DeveloperNotification>, tenant: Tenant, settings: PlayStoreSettings)
        async throws(DomainError) -> NotificationChange
    {
        let notification = received.notification
        if let subscription = notification.subscriptionNotification {
            let (purchase, hints) = try await purchases.subscription(
                token: try Self.token(subscription.purchaseToken), tenant: tenant,
                notification: subscription.notificationType.flatMap(SubscriptionNotificationType.init(rawValue:)),
                notifiedAt: received.signedAt)
            return NotificationChange(purchase: purchase, ownerHints: hints)
        } else if let product = notification.oneTimeProductNotification {
            let token = try Self.token(product.purchaseToken)
            guard let sku = product.sku, !sku.isEmpty else {
                throw .malformedPayload("The oneTimeProductNotification has no sku.")
            }
            try PlayStorePurchases.checkProductID(sku, field: "oneTimeProductNotification.sku")
            return NotificationChange(
                purchase: try await purchases.product(productID: sku, token: token, tenant: tenant, origin: .notification))
        } else if let voided = notification.voidedPurchaseNotification {
            return NotificationChange(
                purchase: try await voidedRecord(
                    token: try Self.token(voided.purchaseToken), orderID: voided.orderId, partial: voided.refundType == 2,
                    tenant: tenant, notifiedAt: received.signedAt))
        } else if notification.testNotification != nil {
            return NotificationChange()
        }
        throw .notApplicable("The notification is of a kind this server does not act on yet.")
    }

    /// A purchase that owes Google an acknowledgement wakes the acknowledger once committed.
    func committed(_ change: NotificationChange) {
        if change.purchase?.acknowledgement.state == .pending { acknowledger?.wake() }
    }

    private func verifyPush(authorization: String?, settings: PlayNotificationSettings) async throws(DomainError) {
        let verifier = try pushTokens.verifier(for: settings.signingKeys)
        let expected = PushTokenExpectations(audience: settings.audience, serviceAccountEmail: settings.pushServiceAccount)
        guard case .failure(let error) = await verifier.verify(
            authorization: authorization, expecting: expected, now: engine.now().milliseconds)
        else { return }
        let message = "The push token was refused (\(error.code.rawValue)): \(error.message)"
        switch error.code {
        case .keysUnavailable: throw .storeUnavailable(message)
        case .wrongIssuer, .wrongAudience, .wrongEmail, .emailNotVerified: throw .permissionDenied(message)
        case .missing, .malformed, .unknownKey, .badSignature, .expired, .notYetValid: throw .unauthenticated(message)
        }
    }

    /// The Pub/Sub envelope's message ID and the notification in its `message.data`.
    static func decode(_ body: [UInt8]) throws(DomainError) -> (messageID: String, notification: DeveloperNotification) {
        func malformed(_ message: String) -> DomainError { .malformedPayload(message) }
        guard let envelope = try? JSONReader.read(PubSubPushEnvelope.self, from: body), let message = envelope.message
        else {
            throw malformed("The body is not a Pub/Sub push: a JSON object with a \"message\" object.")
        }
        guard let messageID = message.messageId ?? message.message_id, !messageID.isEmpty, messageID.utf8.count <= 256 else {
            throw malformed("The Pub/Sub message has no messageId.")
        }
        guard let data = message.data, let decoded = Base64.decode(data, padding: .optional) else {
            throw malformed("The Pub/Sub message's data is missing or not base64.")
        }
        guard let notification = try? JSONReader.read(DeveloperNotification.self, from: decoded) else {
            throw malformed("The Pub/Sub message's data is not a JSON Real-time Developer Notification.")
        }
        return (messageID, notification)
    }

    /// A notification without the fields its kind needs, or of no kind at all, is malformed: 400, like a malformed
    /// envelope, so nothing is applied and its message ID stays unused (rather than acknowledged as "not applied",
    /// which suits answers Google gives about a well-formed one). A kind this server does not know (`kinds` names
    /// one) is not malformed: Google adds kinds, and it is acknowledged, not applied, further on.
    static func checkShape(_ notification: DeveloperNotification) throws(DomainError) {
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
        } else if notification.testNotification == nil, notification.kinds.isEmpty {
            throw .malformedPayload(
                "The notification holds none of subscriptionNotification, oneTimeProductNotification, voidedPurchaseNotification, testNotification.")
        }
    }

    /// Pub/Sub message IDs, kept apart from Apple's notification UUIDs.
    static func notificationID(_ messageID: String) -> String { "play:" + messageID }

    static func token(_ token: String?) throws(DomainError) -> String {
        let token = token ?? ""
        try PlayStorePurchases.checkToken(token, field: "purchaseToken")
        return token
    }
}
