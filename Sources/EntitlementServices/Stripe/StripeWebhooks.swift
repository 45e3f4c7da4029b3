import BoundedText
public import EntitlementDomain
import Encodings
public import RPCCore
import Stripe

/// Stripe webhooks: `POST /v1/stripe/webhooks/{tenant_id}`, through the one ``StoreNotificationEndpoint``.
///
/// The `Stripe-Signature` header is checked on the raw body before anything parses it, against each of the tenant's
/// endpoint secrets. Each event is applied once per event ID (``StripeEvents`` says what it means), in one
/// transaction; 2xx only once that is committed, or for an event about nothing this server acts on; otherwise
/// ``NotificationReply/status(for:)``'s reply, as at every store: 400 for a bad signature or a malformed event,
/// nothing applied; 5xx when Stripe's API, storage or the tenant's settings fail (a price it does not map, a mode it
/// does not accept), so Stripe delivers again (for up to three days) while an operator fixes them.
public struct StripeWebhooks: StoreNotificationSource {
    public static let maxBodyBytes = 256 * 1024
    static let logName = "stripe webhook"
    static let accepted = "Stripe webhooks"
    static let cause = EventCause.stripeWebhook

    let engine: CustomerEngine
    let tenants: TenantRegistry
    let events: StripeEvents
    let log: Logger

    public init(engine: CustomerEngine, tenants: TenantRegistry, apis: StripeAPIs, log: Logger) {
        self.engine = engine
        self.tenants = tenants
        self.events = StripeEvents(engine: engine, apis: apis)
        self.log = log
    }

    public func receive(tenantID: String, signature: String?, body: [UInt8]) async -> NotificationReply {
        await StoreNotificationEndpoint(source: self).receive(
            StoreNotificationRequest(tenantID: tenantID, credential: signature, body: body))
    }

    func settings(of tenant: Tenant) -> StripeSettings? { tenant.stripe }

    func read(_ request: StoreNotificationRequest, tenant: Tenant, settings: StripeSettings)
        throws(DomainError) -> ReceivedNotification<StripeEvent>
    {
        do throws(StripeSignatureError) {
            try StripeSignature.verify(
                header: request.credential, body: request.body, secrets: settings.webhookSecrets,
                toleranceSeconds: Int64(settings.signatureToleranceSeconds), now: engine.now().milliseconds / 1000)
        } catch {
            throw .verificationFailed("The Stripe-Signature was refused (\(error.code.rawValue)): \(error.message)")
        }
        let event = try Self.decode(request.body)
        try StripeEvents.checkShape(event)
        return ReceivedNotification(
            id: StripeEvents.notificationID(event.id), reason: event.type,
            signedAt: try UnixTime(seconds: event.created, checking: "created"), notification: event)
    }

    func change(of received: ReceivedNotification<StripeEvent>, tenant: Tenant, settings: StripeSettings)
        async throws(DomainError) -> NotificationChange
    {
        try await events.change(of: received.notification, tenant: tenant, settings: settings)
    }

    /// The event, or what is wrong with it.
    static func decode(_ body: [UInt8]) throws(DomainError) -> StripeEvent {
        let event: StripeEvent
        do {
            event = try JSONReader.read(StripeEvent.self, from: body)
        } catch {
            throw .malformedPayload(
                "The body is not a Stripe event (\(String(describing: error).truncated(toUTF8Bytes: 200))).")
        }
        guard event.id.hasPrefix("evt_"), event.id.utf8.count <= 255 else {
            throw .malformedPayload("The event's id \(event.id.quotedForMessage) is not an evt_ ID.")
        }
        guard event.created > 0 else {
            throw .malformedPayload("The event has no created time.")
        }
        do throws(DomainError) {
            _ = try UnixTime(seconds: event.created, checking: "created")
        } catch {
            throw .malformedPayload("The event's \(error.message)")
        }
        return event
    }
}
