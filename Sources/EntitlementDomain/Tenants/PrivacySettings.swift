/// A tenant's `privacy` configuration: what an erasure (`DeleteCustomer`) does with the records a business keeps for
/// its accounts.
///
///     "privacy": {                                     // optional
///       "erase_accounting_records": false              // optional, default false: an erased customer's purchases
///                                                      // and revenue ledger rows stay, with no link to the person
///                                                      // but the stores' own IDs; true: they are deleted too
///     }
public struct PrivacySettings: Sendable, Hashable {
    public var erasesAccountingRecords: Bool

    public static let defaults = PrivacySettings(erasesAccountingRecords: false)

    public init(erasesAccountingRecords: Bool) {
        self.erasesAccountingRecords = erasesAccountingRecords
    }
}
