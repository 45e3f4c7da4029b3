import EntitlementDomain

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
