import CSystemShims
import EntitlementDomain
import Synchronization

/// Gives the memory of closed status streams back to the system.
///
/// glibc keeps what the process frees for reuse, so once 100,000 streams have closed the resident memory would stay
/// at its peak for good. `malloc_trim` hands the free pages back, but it walks the heap under malloc's locks, so it
/// runs only once many streams have closed since it last ran, checked every few seconds.
final class MemoryReturn: Sendable {
    static let closedStreamsPerTrim = 1_000
    static let checkInterval: Duration = .seconds(5)

    private let hub: StatusHub
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(hub: StatusHub) {
        self.hub = hub
    }

    func start() {
        let hub = self.hub
        let task = Task {
            var closedAtLastTrim = hub.closedStreamCount
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.checkInterval)
                let closed = hub.closedStreamCount
                guard closed - closedAtLastTrim >= Self.closedStreamsPerTrim else { continue }
                cshim_malloc_trim()
                closedAtLastTrim = closed
            }
        }
        self.task.withLock { $0 = task }
    }

    func stop() {
        task.withLock { $0?.cancel() }
    }
}
