/// A day's total in one group of dimensions, which totals of the same day, group and kind add up into: the ledger's
/// movements (``RevenueTotal``) and the subscriptions' changes (``SubscriptionTotal``).
public protocol DailyTotal: Sendable {
    associatedtype SumKey: Hashable
    var group: [RevenueDimension: String] { get set }
    /// What identifies the total's sum: its day, group, currency and kind.
    var sumKey: SumKey { get }
    /// This total and `other`, of the same key, added up; nil when a sum does not fit in 64 bits.
    func adding(_ other: Self) -> Self?
}

extension DailyTotal {
    /// `totals` grouped by their entitlements, kept where the list includes `entitlement`, then summed into groups
    /// without them unless `groupedByEntitlements`.
    public static func narrowed(_ totals: [Self], toEntitlement entitlement: String, groupedByEntitlements: Bool)
        throws(StorageError) -> [Self]
    {
        let kept = totals.filter { ($0.group[.entitlements] ?? "").split(separator: " ").contains { $0 == entitlement } }
        if groupedByEntitlements { return kept }
        return try summed(
            kept.map { total in
                var total = total
                total.group[.entitlements] = nil
                return total
            })
    }

    /// One total per key, in the order each key first appears.
    static func summed(_ totals: [Self]) throws(StorageError) -> [Self] {
        var sums: [SumKey: Self] = [:]
        var order: [SumKey] = []
        for total in totals {
            let key = total.sumKey
            guard let sum = sums[key] else {
                sums[key] = total
                order.append(key)
                continue
            }
            guard let added = sum.adding(total) else { throw StorageError.corrupt("a daily total does not fit in 64 bits") }
            sums[key] = added
        }
        return order.compactMap { sums[$0] }
    }
}

/// `a + b`, nil on overflow.
func sum(_ a: Int64, _ b: Int64) -> Int64? {
    let (total, overflow) = a.addingReportingOverflow(b)
    return overflow ? nil : total
}

/// What has a value of every dimension metrics group by: a ledger row, a subscription's change.
protocol RevenueDimensioned {
    var store: Store { get }
    var productID: String { get }
    var entitlementIDs: [String] { get }
    var country: String { get }
    var offer: OfferKind { get }
}

extension RevenueDimensioned {
    /// The value of `dimension`, in the ledger's words.
    func value(of dimension: RevenueDimension) -> String {
        switch dimension {
        case .store: store.ledgerName
        case .product: productID
        case .entitlements: entitlementIDs.joined(separator: " ")
        case .country: country
        case .offer: offer.name
        }
    }

    /// Whether `value` is this one's (an entitlement: among its entitlements).
    func matches(_ dimension: RevenueDimension, _ value: String) -> Bool {
        dimension == .entitlements ? entitlementIDs.contains(value) : self.value(of: dimension) == value
    }
}
