import EntitlementDomain
import BoundedText
import RPCCore

/// A store notification as it arrived: the path's tenant, the header the store authenticates it with (Google's push
/// token, the `Stripe-Signature`; Apple signs the body), and the body.
struct StoreNotificationRequest: Sendable {
    var tenantID: String
    var credential: String?
    var body: [UInt8]
}

/// A verified notification, read: its ID (kept apart from the other stores' IDs), what it is (the reason its customer
/// event records), when the store signed or sent it, and the store's own reading of it.
struct ReceivedNotification<Notification: Sendable>: Sendable {
    var id: String
    var reason: String
    var signedAt: UnixTime?
    var notification: Notification
}

/// What differs between the stores' notification endpoints: the tenant's settings for the store, verifying and
/// reading a request, and the change a notification means. ``StoreNotificationEndpoint`` does the rest for all.
protocol StoreNotificationSource: Sendable {
    associatedtype Settings: Sendable
    associatedtype Notification: Sendable

    /// The message of the endpoint's log line.
    static var logName: String { get }
    /// The largest body taken; a larger one is refused before anything reads it.
    static var maxBodyBytes: Int { get }
    /// What the refusal of a tenant without ``settings(of:)`` says it does not accept.
    static var accepted: String { get }
    /// The cause of the customer events the notifications make.
    static var cause: EventCause { get }

    var engine: CustomerEngine { get }
    var tenants: TenantRegistry { get }
    var log: Logger { get }

    /// The tenant's settings for this store's notifications; nil when it takes none.
    func settings(of tenant: Tenant) -> Settings?
    /// The request verified (nothing is read before its signature or token passes) and read.
    func read(_ request: StoreNotificationRequest, tenant: Tenant, settings: Settings)
        async throws(DomainError) -> ReceivedNotification<Notification>
    /// What the notification means, asking the store where it only says that something changed.
    func change(of received: ReceivedNotification<Notification>, tenant: Tenant, settings: Settings)
        async throws(DomainError) -> NotificationChange
    /// Work once the change is committed.
    func committed(_ change: NotificationChange)
}

extension StoreNotificationSource {
    func committed(_ change: NotificationChange) {}
}

/// One endpoint for every store's notifications: the size limit, the tenant, the store's verification and reading,
/// deduplication by notification ID (before the store is asked again), the store's change committed once, and the reply
/// (``NotificationReply/status(for:)`` for every failure, the same at every store), logged. The router records the
/// reply in the notifications metric.
struct StoreNotificationEndpoint<Source: StoreNotificationSource>: Sendable {
    let source: Source

    func receive(_ request: StoreNotificationRequest) async -> NotificationReply {
        await NotificationReply.logged(Source.logName, tenantID: request.tenantID, log: source.log) {
            () throws(NotificationReply) in
            guard request.body.count <= Source.maxBodyBytes else { throw .tooLarge(limit: Source.maxBodyBytes) }
            do throws(DomainError) {
                guard let tenant = source.tenants.directory.tenant(id: request.tenantID),
                    let settings = source.settings(of: tenant)
                else {
                    throw .notFound("No tenant \(request.tenantID.quotedForMessage) accepts \(Source.accepted).")
                }
                let received = try await source.read(request, tenant: tenant, settings: settings)
                var reply: NotificationReply
                do throws(DomainError) {
                    let (outcome, note) = try await apply(received, tenant: tenant, settings: settings)
                    reply =
                        if outcome == .recorded, let note {
                            NotificationReply(status: 200, message: "\(received.reason): \(note)")
                        } else {
                            NotificationReply(outcome, reason: received.reason)
                        }
                } catch where error.code == .notApplicable {
                    return await NotificationReply.notApplied(
                        error, engine: source.engine, tenantID: tenant.id, notificationID: received.id,
                        cause: Source.cause)
                }
                reply.signedAt = received.signedAt
                return reply
            } catch {
                throw NotificationReply(error)
            }
        }
    }

    /// Applies a received notification once per ID: one seen before is a duplicate, answered before the store is
    /// asked again (its API may be down, or the notification was acknowledged without being applied). With the note
    /// the change carries for a reply.
    func apply(_ received: ReceivedNotification<Source.Notification>, tenant: Tenant, settings: Source.Settings)
        async throws(DomainError) -> (StoreNotificationOutcome, note: String?)
    {
        if try source.engine.purchases.isNotificationProcessed(tenantID: tenant.id, notificationID: received.id) {
            return (.duplicate, nil)
        }
        let change = try await source.change(of: received, tenant: tenant, settings: settings)
        let outcome = try await source.engine.purchases.applyStoreNotification(
            tenantID: tenant.id, notificationID: received.id, reason: received.reason, cause: Source.cause,
            change: change)
        source.committed(change)
        return (outcome, change.note)
    }
}
