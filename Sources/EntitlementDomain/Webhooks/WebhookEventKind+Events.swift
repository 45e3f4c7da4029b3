extension WebhookEventKind {
    /// The kinds a customer event is, for matching against what an endpoint wants: always its change
    /// (`status_changed` or `customer_info_changed`), and what caused it when that is one of the others.
    static func kinds(cause: EventCause, change: StatusChange, subject: EventSubject) -> Set<WebhookEventKind> {
        var kinds: Set<WebhookEventKind> = [change == .statusChanged ? .statusChanged : .customerInfoChanged]
        if let kind = causeKind(cause: cause, subject: subject) { kinds.insert(kind) }
        return kinds
    }

    /// The most specific kind: the cause's when it has one, else the change's. It names the message's `type`.
    static func primary(cause: EventCause, change: StatusChange, subject: EventSubject) -> WebhookEventKind {
        causeKind(cause: cause, subject: subject) ?? (change == .statusChanged ? .statusChanged : .customerInfoChanged)
    }

    private static func causeKind(cause: EventCause, subject: EventSubject) -> WebhookEventKind? {
        switch cause {
        case .purchase, .restore, .redemption: return .purchase
        case .transferredIn: return .transfer
        case .transferredOut: return subject.isMergedAway ? .merge : .transfer
        case .merged: return .merge
        case .grant, .revoke: return .grant
        case .attributes: return .attributesChanged
        case .created, .expiry, .support, .offerSigned: return nil
        case .appStoreNotification, .playStoreNotification, .storeAPI, .stripeWebhook:
            return subject.purchase.flatMap { storeKind(after: $0, before: subject.previousPurchase) }
        }
    }

    /// What a store's word did to a purchase, judged on the one purchase model (so every store reads the same): newly
    /// revoked is a refund, first seen is a purchase, a later expiry is a renewal; anything else (a cancellation, a
    /// billing problem) is only its change.
    private static func storeKind(after: StorePurchase, before: StorePurchase?) -> WebhookEventKind? {
        if after.revokedAt != nil, before?.revokedAt == nil { return .refund }
        guard let before else { return .purchase }
        if let expires = after.expiresAt, let previous = before.expiresAt, expires > previous { return .renewal }
        return nil
    }
}
