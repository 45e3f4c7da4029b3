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
        let fields: KeyValuePairs<String, String> = ["tenant": tenantID, "status": String(reply.status), "result": reply.message]
        if reply.status >= 500 { log.warning(what, fields) } else { log.info(what, fields) }
        return reply
    }
}
