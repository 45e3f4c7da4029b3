#if canImport(StoreKit)
    public import StoreKit

    /// ``LocalEntitlementSource`` over StoreKit 2: `Transaction.currentEntitlements` for what the user owns now,
    /// `Transaction.updates` (read from the SDK's start, as Apple asks) for every purchase, renewal, refund and
    /// revocation, and `finish()` once the server accepted a transaction. Only transactions StoreKit verified count
    /// on the device; the server verifies each one again on its own before it grants anything.
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
    public struct StoreKitEntitlementSource: LocalEntitlementSource {
        public init() {}

        public func currentEntitlements() async -> [LocalTransaction] {
            var transactions: [LocalTransaction] = []
            for await result in Transaction.currentEntitlements {
                if let transaction = Self.local(result) { transactions.append(transaction) }
            }
            return transactions
        }

        public func transactionUpdates() -> AsyncStream<LocalTransaction> {
            AsyncStream { continuation in
                let reader = Task {
                    for await result in Transaction.updates {
                        if let transaction = Self.local(result) { continuation.yield(transaction) }
                    }
                    continuation.finish()
                }
                continuation.onTermination = { _ in reader.cancel() }
            }
        }

        public func finish(_ transaction: LocalTransaction) async {
            for await result in Transaction.unfinished {
                if case .verified(let unfinished) = result, String(unfinished.id) == transaction.transactionID {
                    await unfinished.finish()
                    return
                }
            }
        }

        static func local(_ result: VerificationResult<Transaction>) -> LocalTransaction? {
            guard case .verified(let transaction) = result else { return nil }
            return LocalTransaction(
                transactionID: String(transaction.id), originalTransactionID: String(transaction.originalID),
                productID: transaction.productID, expiresAt: transaction.expirationDate,
                revokedAt: transaction.revocationDate, signedTransaction: result.jwsRepresentation)
        }
    }
#endif
