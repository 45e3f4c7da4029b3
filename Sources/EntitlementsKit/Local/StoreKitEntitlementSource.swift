#if canImport(StoreKit)
    public import StoreKit
    import Foundation

    /// ``LocalEntitlementSource`` over StoreKit 2: `Transaction.currentEntitlements` for what the user owns now,
    /// `Transaction.updates` (read from the SDK's start, as Apple asks) for every purchase, renewal, refund and
    /// revocation, and `finish()` once the server accepted a transaction. Only transactions StoreKit verified count
    /// on the device; the server verifies each one again on its own before it grants anything.
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
    public struct StoreKitEntitlementSource: LocalEntitlementSource {
        /// The transactions handed to the SDK and not finished yet, so `finish` finishes the very one it was given.
        private let unfinished = UnfinishedTransactions()

        public init() {}

        public func currentEntitlements() async -> [LocalTransaction] {
            var transactions: [LocalTransaction] = []
            for await result in Transaction.currentEntitlements {
                if let transaction = local(result) { transactions.append(transaction) }
            }
            return transactions
        }

        public func transactionUpdates() -> AsyncStream<LocalTransaction> {
            AsyncStream { continuation in
                let reader = Task {
                    for await result in Transaction.updates {
                        if let transaction = local(result) { continuation.yield(transaction) }
                    }
                    continuation.finish()
                }
                continuation.onTermination = { _ in reader.cancel() }
            }
        }

        public func finish(_ transaction: LocalTransaction) async {
            if let held = unfinished.take(transaction.transactionID) {
                await held.finish()
                return
            }
            for await result in Transaction.unfinished {
                if case .verified(let unfinished) = result, String(unfinished.id) == transaction.transactionID {
                    await unfinished.finish()
                    return
                }
            }
        }

        private func local(_ result: VerificationResult<Transaction>) -> LocalTransaction? {
            guard case .verified(let transaction) = result else { return nil }
            unfinished.hold(transaction)
            return LocalTransaction(
                transactionID: String(transaction.id), originalTransactionID: String(transaction.originalID),
                productID: transaction.productID, expiresAt: transaction.expirationDate,
                revokedAt: transaction.revocationDate, isUpgraded: transaction.isUpgraded,
                signedTransaction: result.jwsRepresentation)
        }
    }

    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
    private final class UnfinishedTransactions: @unchecked Sendable {
        private let lock = NSLock()
        private var transactions: [String: Transaction] = [:]

        func hold(_ transaction: Transaction) {
            lock.withLock {
                // Bounded: what is never finished (a product the server refused) does not pile up.
                if transactions.count >= 256 { transactions.removeAll() }
                transactions[String(transaction.id)] = transaction
            }
        }

        func take(_ id: String) -> Transaction? {
            lock.withLock { transactions.removeValue(forKey: id) }
        }
    }
#endif
