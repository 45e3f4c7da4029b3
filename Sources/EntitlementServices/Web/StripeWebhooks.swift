import BoundedText
public import EntitlementDomain
import Foundation
public import RPCCore
import Stripe

/// Stripe webhooks: `POST /v1/stripe/webhooks/{tenant_id}`.
///
/// The `Stripe-Signature` header is checked on the raw body before anything parses it, against each of the tenant's
/// endpoint secrets. Each event is applied once per event ID (``StripeEvents`` says what it means), in one
/// transaction; 2xx only once that is committed, or for an event about nothing this server acts on; otherwise
/// ``NotificationReply/status(for:)``'s reply, as at every store: 400 for a bad signature or a malformed event,
/// nothing applied; 5xx when Stripe's API, storage or the tenant's settings fail (a price it does not map, a mode it
/// does not accept), so Stripe delivers again (for up to three days) while an operator fixes them.
public struct StripeWebhooks: Sendable {
    public static let maxBodyBytes = 256 * 1024

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
        await NotificationReply.logged("stripe webhook", tenantID: tenantID, log: log) { () throws(NotificationReply) in
            try await apply(tenantID: tenantID, signature: signature, body: body)
        }
    }

    private func apply(tenantID: String, signature: String?, body: [UInt8]) async throws(NotificationReply)
        -> NotificationReply
    {
        guard body.count <= Self.maxBodyBytes else {
            throw .tooLarge(limit: Self.maxBodyBytes)
        }
        guard let tenant = tenants.directory.tenant(id: tenantID), let settings = tenant.stripe else {
            throw NotificationReply(.notFound("No tenant \(tenantID.quotedForMessage) accepts Stripe webhooks."))
        }
        do throws(StripeSignatureError) {
            try StripeSignature.verify(
                header: signature, body: body, secrets: settings.webhookSecrets,
                toleranceSeconds: Int64(settings.signatureToleranceSeconds), now: engine.now().milliseconds / 1000)
        } catch {
            throw NotificationReply(
                .verificationFailed("The Stripe-Signature was refused (\(error.code.rawValue)): \(error.message)"))
        }
        let event = try Self.decode(body)
        try StripeEvents.checkShape(event)
        do throws(DomainError) {
            // A redelivery of an event already handled: answered before its objects are fetched or interpreted again
            // (Stripe's API may be down, or the event was one acknowledged without being applied).
            var reply =
                if try engine.isNotificationProcessed(
                    tenantID: tenant.id, notificationID: StripeEvents.notificationID(event.id))
                {
                    NotificationReply(.duplicate, reason: event.type)
                } else {
                    try await events.apply(event, tenant: tenant, settings: settings)
                }
            reply.signedAt = try UnixTime(seconds: event.created, checking: "created")
            return reply
        } catch where error.code == .notApplicable {
            return await NotificationReply.notApplied(
                error, engine: engine, tenantID: tenant.id, notificationID: StripeEvents.notificationID(event.id),
                cause: .stripeWebhook, prefix: event.type)
        } catch {
            throw NotificationReply(error)
        }
    }

    /// The event, or 400 naming what is wrong with it.
    static func decode(_ body: [UInt8]) throws(NotificationReply) -> StripeEvent {
        let event: StripeEvent
        do {
            event = try JSONDecoder().decode(StripeEvent.self, from: Data(body))
        } catch {
            throw NotificationReply(
                .malformedPayload("The body is not a Stripe event (\(String(describing: error).truncated(toUTF8Bytes: 200))).")
            )
        }
        guard event.id.hasPrefix("evt_"), event.id.utf8.count <= 255 else {
            throw NotificationReply(.malformedPayload("The event's id \(event.id.quotedForMessage) is not an evt_ ID."))
        }
        guard event.created > 0 else {
            throw NotificationReply(.malformedPayload("The event has no created time."))
        }
        do throws(DomainError) {
            _ = try UnixTime(seconds: event.created, checking: "created")
        } catch {
            throw NotificationReply(.malformedPayload("The event's \(error.message)"))
        }
        return event
    }
}
