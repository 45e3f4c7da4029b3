import EntitlementDomain
import RPCCore

/// What a store-notification endpoint answers the store, and the line it logs: the message names the failed check or
/// what was applied, never the payload. Thrown as the refusal it is, where a check fails.
public struct NotificationReply: Error, Sendable, Hashable {
    public var status: Int
    public var message: String

    public init(status: Int, message: String) {
        self.status = status
        self.message = message
    }

    /// 200 for a committed notification, saying what it did.
    init(_ outcome: StoreNotificationOutcome, reason: String) {
        switch outcome {
        case .duplicate: self.init(status: 200, message: "\(reason): already processed")
        case .recorded: self.init(status: 200, message: "\(reason): recorded")
        case .applied(let appUserID, let changed):
            self.init(status: 200, message: "\(reason): \(changed ? "applied to" : "nothing new for") \(appUserID)")
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
