/// The revenue ledger's daily totals, kept up to date with the ledger in every write transaction that records a
/// movement (so a read never scans the ledger).
public protocol RevenueReads: Sendable {
    /// The totals `query` selects, one per day, group, currency and kind that has any movement; in no order.
    func revenueTotals(_ query: RevenueTotalsQuery) throws(StorageError) -> [RevenueTotal]
    /// The changes in active subscriptions and trials (and their MRR) up to `query.days`' last day, grouped and
    /// filtered as asked: those before its first summed into one dated the day before it.
    func subscriptionTotals(_ query: RevenueTotalsQuery) throws(StorageError) -> [SubscriptionTotal]
    /// How many subscription events of `kind` each of `periods` (within `query.days`, ascending, not overlapping)
    /// counts (``SubscriptionEvent/counts(in:)``), grouped and filtered as asked.
    func subscriptionEventTotals(
        _ query: RevenueTotalsQuery, kind: SubscriptionEvent.Kind, periods: [ClosedRange<Int64>]
    ) throws(StorageError) -> [SubscriptionEventTotal]
    /// Every ledger row of one purchase (its original transaction), in no order.
    func ledgerEntries(tenantID: String, store: Store, originalTransactionID: String) throws(StorageError)
        -> [LedgerEntry]
    /// The ledger rows `query` selects after `query.after`, in ``LedgerRowKey`` order; at most `query.limit`.
    func ledgerRows(_ query: LedgerRowsQuery) throws(StorageError) -> [LedgerRow]
    /// Every billing observation of each subscription in `tenantID`'s `environment` that has one about a renewal
    /// due in `due`, each with the app user ID of the customer its payment names (empty when none); in no order.
    func billingObservations(tenantID: String, environment: PurchaseEnvironment, due: ClosedRange<UnixTime>)
        throws(StorageError) -> [(observation: BillingObservation, appUserID: String)]
}
