/// Store acknowledgements due (a purchase's acknowledgement itself is written with the purchase,
/// ``PurchaseStorage/savePurchase(_:)``).
public protocol AcknowledgementReads: Sendable {
    /// Purchases whose store acknowledgement is pending and due at or before `time`, soonest first, any tenant.
    func acknowledgementsDue(at time: UnixTime, limit: Int) throws(StorageError) -> [StorePurchase]
    /// The soonest due time of a pending acknowledgement, for the acknowledger's timer.
    func nextAcknowledgementDue() throws(StorageError) -> UnixTime?
}
