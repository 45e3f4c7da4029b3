/// Redemption codes (only inside a write transaction: a code is read to be used).
public protocol RedemptionCodeStorage {
    func insertRedemptionCode(_ code: RedemptionCodeRecord) throws(StorageError)
    func redemptionCode(tenantID: String, codeHash: String) throws(StorageError) -> RedemptionCodeRecord?
    /// Records a code's use or replacement (its `usedAt`, `usedBy`, `replacedAt`).
    func updateRedemptionCode(_ code: RedemptionCodeRecord) throws(StorageError)
    /// Marks every code of the purchase that is neither used nor replaced as replaced at `at`.
    func replaceOpenRedemptionCodes(tenantID: String, store: Store, originalTransactionID: String, at: UnixTime)
        throws(StorageError)
}
