import EntitlementsKit
import Foundation
import Synchronization

/// A local store the test drives: what it shows now, updates it pushes, and what the SDK finished.
final class FakeLocalSource: LocalEntitlementSource {
    private let state = Mutex<(current: [LocalTransaction], reads: Int, finished: [String])>(([], 0, []))
    private let updates: AsyncStream<LocalTransaction>
    private let continuation: AsyncStream<LocalTransaction>.Continuation

    init(current: [LocalTransaction] = []) {
        (updates, continuation) = AsyncStream.makeStream(of: LocalTransaction.self)
        state.withLock { $0.current = current }
    }

    var reads: Int { state.withLock { $0.reads } }
    var finished: [String] { state.withLock { $0.finished } }
    func show(_ transactions: [LocalTransaction]) { state.withLock { $0.current = transactions } }
    func push(_ transaction: LocalTransaction) { continuation.yield(transaction) }

    func currentEntitlements() async -> [LocalTransaction] {
        state.withLock {
            $0.reads += 1
            return $0.current
        }
    }

    func transactionUpdates() -> AsyncStream<LocalTransaction> { updates }

    func finish(_ transaction: LocalTransaction) async {
        state.withLock { $0.finished.append(transaction.signedTransaction) }
    }

    static func transaction(
        _ id: String, product: String = "com.example.pro.monthly", expires: Date? = Date().addingTimeInterval(3600),
        revoked: Date? = nil, jws: String? = nil
    ) -> LocalTransaction {
        LocalTransaction(
            transactionID: id, originalTransactionID: "orig-" + id, productID: product, expiresAt: expires,
            revokedAt: revoked, signedTransaction: jws ?? "jws-\(id)-\(revoked == nil ? "active" : "revoked")")
    }
}
