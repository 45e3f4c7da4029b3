import Dispatch
import EntitlementDomain
import HTTP1
import Synchronization

/// `GET /readyz`: 200 `ready` only while the server is not shutting down and the database answers a query on a fresh
/// connection within `timeout`; otherwise 503 naming the check that failed. Tenants need no check: the server does
/// not listen until its tenants file has loaded, and a reload that fails keeps the tenants in force.
///
/// One database check runs at a time, on a thread of its own (the query blocks); probes that arrive meanwhile wait
/// for its answer, each no longer than `timeout`, so a hanging database costs one thread, not one per probe.
final class ReadinessCheck: Sendable {
    private let repository: any CustomerRepository
    private let isDraining: @Sendable () -> Bool
    private let timeout: Duration
    private let waiters = Mutex<(running: Bool, waiting: [UInt64: CheckedContinuation<String?, Never>], next: UInt64)>(
        (false, [:], 0))

    init(
        repository: any CustomerRepository, timeout: Duration = .seconds(2),
        isDraining: @escaping @Sendable () -> Bool
    ) {
        self.repository = repository
        self.timeout = timeout
        self.isDraining = isDraining
    }

    func respond() async -> HTTPResponse {
        if isDraining() { return .text(503, "not ready: shutting down\n") }
        if let failure = await storageFailure() { return .text(503, "not ready: storage: \(failure)\n") }
        return .text(200, "ready\n")
    }

    /// nil when the database answered in time; else what went wrong.
    private func storageFailure() async -> String? {
        await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
            let (id, starts) = waiters.withLock { state -> (UInt64, Bool) in
                let id = state.next
                state.next += 1
                state.waiting[id] = continuation
                defer { state.running = true }
                return (id, !state.running)
            }
            let (seconds, attoseconds) = timeout.components
            let deadline = DispatchTime.now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
            DispatchQueue.global().asyncAfter(deadline: deadline) { [self] in
                let late = waiters.withLock { $0.waiting.removeValue(forKey: id) }
                late?.resume(returning: "no answer within \(timeout)")
            }
            guard starts else { return }
            DispatchQueue.global().async { [self] in
                var failure: String?
                do throws(StorageError) {
                    try repository.checkReachable()
                } catch {
                    failure = error.message
                }
                let answered = waiters.withLock { state in
                    defer {
                        state.waiting = [:]
                        state.running = false
                    }
                    return Array(state.waiting.values)
                }
                for waiter in answered { waiter.resume(returning: failure) }
            }
        }
    }
}
