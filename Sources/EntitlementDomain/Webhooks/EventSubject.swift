/// What a customer event is about, beyond its cause and reason: what the webhooks reporting it need to say. Only
/// the engine's writes make one; nothing of it is stored with the event.
struct EventSubject: Sendable {
    /// The purchase the change applied, as stored after it.
    var purchase: StorePurchase?
    /// The same purchase as stored before the change; nil when it is new.
    var previousPurchase: StorePurchase?
    /// The grant made or revoked.
    var grant: GrantRecord?
    /// The customer a merge emptied (its event is a transfer out, but reports the merge).
    var isMergedAway = false
    /// The attributes the change set or removed.
    var attributes: AttributeSubject?
    /// The money the change moved: the revenue ledger's entries it recorded.
    var revenue: [LedgerEntry] = []

    static let none = EventSubject()

    func reporting(_ revenue: [LedgerEntry]) -> EventSubject {
        var subject = self
        subject.revenue = revenue
        return subject
    }
}
