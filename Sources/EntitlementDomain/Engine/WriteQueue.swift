import Dispatch

/// Runs store writes one at a time on a thread of their own.
///
/// A durable SQLite commit waits for the disk; doing that on Swift's cooperative threads would stall every task.
/// Callers await here instead.
final class WriteQueue: Sendable {
    private let queue = DispatchQueue(label: "entitlementd.store-writes")

    func run<Value: Sendable>(_ body: @escaping @Sendable () throws(DomainError) -> Value) async throws(DomainError)
        -> Value
    {
        let outcome: Result<Value, DomainError> = await withCheckedContinuation { continuation in
            queue.async {
                do throws(DomainError) {
                    continuation.resume(returning: .success(try body()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try outcome.get()
    }
}
