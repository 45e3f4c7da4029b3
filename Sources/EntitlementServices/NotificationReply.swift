public import EntitlementDomain
import RPCCore

/// What a store-notification endpoint answers the store, and the line it logs: the message names the failed check or
/// what was applied, never the payload. Thrown as the refusal it is, where a check fails.
public struct NotificationReply: Error, Sendable, Hashable {
    public var status: Int
    public var message: String
    /// What the reply did, for the notifications metric.
    public var outcome: Outcome
    /// When the store signed or sent the notification (its lag is measured from here); nil until it was read.
    public var signedAt: UnixTime?
    /// Where the error this reply answers was raised (`#fileID:#line`), for the log; nil for other replies.
    public var raisedAt: String?

    /// The notifications metric's `outcome` label: a closed set.
    public enum Outcome: String, Sendable, Hashable, CaseIterable {
        /// Applied to a customer and changed what was stored.
        case applied
        /// Applied to a customer, not newer than what was stored.
        case unchanged
        /// Recorded without an owner, or carrying no purchase.
        case recorded
        case duplicate
        /// Acknowledged without being applied (about something this app does not sell).
        case notApplied = "not_applied"
        /// Malformed, or it failed verification.
        case invalid
        /// The push's credentials (Google's token) or the signature header were refused.
        case unauthenticated
        case unknownTenant = "unknown_tenant"
        case tooLarge = "too_large"
        /// Our side failed (storage, the store's API): the store delivers again.
        case failed

        /// The outcome a status implies when nothing more specific is known.
        init(status: Int) {
            self =
                switch status {
                case 200..<300: .recorded
                case 401, 403: .unauthenticated
                case 404: .unknownTenant
                case 413: .tooLarge
                case 500...: .failed
                default: .invalid
                }
        }
    }

    public init(status: Int, message: String, outcome: Outcome? = nil) {
        self.status = status
        self.message = message
        self.outcome = outcome ?? Outcome(status: status)
    }

    /// The reply to a notification that failed with `error`: the one mapping of ``DomainError/Code`` to HTTP that
    /// every store's endpoint uses (``status(for:)``).
    init(_ error: DomainError) {
        let status = Self.status(for: error.code)
        self.init(
            status: status, message: error.code == .notApplicable ? "not applied: \(error.message)" : error.message,
            outcome: error.code == .notApplicable ? .notApplied : nil)
        raisedAt = error.location
    }

    /// The HTTP status a store gets for a notification that failed with `code`, the same at every store.
    ///
    /// App Store Server Notifications, Pub/Sub push and Stripe all deliver again after any reply but a 2xx (Apple
    /// about five times over three days, Pub/Sub until the subscription's retention ends, seven days by default,
    /// Stripe for three days), so a 2xx is given only when nothing is left to do: the notification is about nothing
    /// this server acts on. A 4xx says a redelivery of the same request cannot succeed; a 5xx that it can once our
    /// side (storage, the tenants file, credentials) or the store's API recovers, so nothing is lost meanwhile.
    /// The README's "What each store is answered" table is checked against this by a test.
    static func status(for code: DomainError.Code) -> Int {
        switch code {
        case .notApplicable: 200
        case .invalidRequest, .malformedPayload, .verificationFailed: 400
        case .unauthenticated: 401
        case .permissionDenied: 403
        case .notFound: 404
        case .alreadyExists, .wrongState: 409
        case .unmappedProduct, .tenantMisconfigured, .serverMisconfigured, .credentialsUnusable, .storeUnavailable,
            .storageUnavailable, .resourceExhausted:
            503
        case .storageFailed, .internalError: 500
        }
    }

    /// 413 for a body over the endpoint's `limit` in bytes, before anything reads it.
    static func tooLarge(limit: Int) -> NotificationReply {
        NotificationReply(status: 413, message: "The body is larger than \(limit) bytes.")
    }

    /// 200 for a committed notification, saying what it did.
    init(_ outcome: StoreNotificationOutcome, reason: String) {
        switch outcome {
        case .duplicate: self.init(status: 200, message: "\(reason): already processed", outcome: .duplicate)
        case .recorded: self.init(status: 200, message: "\(reason): recorded", outcome: .recorded)
        case .applied(let appUserID, let changed):
            self.init(
                status: 200, message: "\(reason): \(changed ? "applied to" : "nothing new for") \(appUserID)",
                outcome: changed ? .applied : .unchanged)
        }
    }
}

extension NotificationReply {
    /// What `body` answers, or the refusal it throws, logged as `what` with the tenant and the result: a warning for
    /// a 5xx (the store delivers again; someone should look), info otherwise.
    static func logged(
        _ what: String, tenantID: String, log: Logger, _ body: () async throws(NotificationReply) -> NotificationReply
    ) async -> NotificationReply {
        let reply: NotificationReply
        do throws(NotificationReply) {
            reply = try await body()
        } catch {
            reply = error
        }
        let status = String(reply.status)
        let fields: KeyValuePairs<String, String> =
            if let raisedAt = reply.raisedAt {
                ["tenant": tenantID, "status": status, "result": reply.message, "raised_at": raisedAt]
            } else {
                ["tenant": tenantID, "status": status, "result": reply.message]
            }
        if reply.status >= 500 { log.warning(what, fields) } else { log.info(what, fields) }
        return reply
    }

    /// A notification about nothing this server acts on (`error` is ``DomainError/Code/notApplicable``): its ID is
    /// recorded, so that a redelivery is answered as a duplicate without asking the store again, and the store gets
    /// the 2xx that ends its deliveries.
    static func notApplied(
        _ error: DomainError, engine: CustomerEngine, tenantID: String, notificationID: String, cause: EventCause
    ) async -> NotificationReply {
        _ = try? await engine.purchases.applyStoreNotification(
            tenantID: tenantID, notificationID: notificationID, purchase: nil, reason: "not applied", cause: cause)
        return NotificationReply(error)
    }
}
