import Dispatch
import Synchronization

/// Makes time-driven changes happen on time: a grant that ends at 12:00:00 is recorded, and pushed to open
/// streams, at 12:00:00 — with no request to trigger it.
///
/// One timer for the whole database, set to the soonest `nextChangeAt` of any customer and moved earlier whenever a
/// write produces an earlier one.
public final class ExpiryScheduler: Sendable {
    private let engine: CustomerEngine
    private let queue = DispatchQueue(label: "entitlementd.expiry")
    private let state = Mutex<State>(State())
    private let logFailure: @Sendable (DomainError) -> Void

    private struct State {
        var timer: (any DispatchSourceTimer)?
        var wakeAt: UnixTime?
        var running = false
        /// A timer fired during a run: run again right after, it may be for a change the run did not see.
        var rerun = false
        var stopped = false
    }

    public init(engine: CustomerEngine, logFailure: @escaping @Sendable (DomainError) -> Void = { _ in }) {
        self.engine = engine
        self.logFailure = logFailure
    }

    /// Catches up on anything already due, then keeps the timer armed.
    public func start() {
        engine.core.timeChanges.set { [weak self] time in self?.wake(at: time) }
        wake(at: engine.core.now())
    }

    public func stop() {
        let timer = state.withLock { state in
            state.stopped = true
            defer { state.timer = nil }
            return state.timer
        }
        timer?.cancel()
    }

    /// Arms the timer for `time` unless it is already set to fire sooner.
    func wake(at time: UnixTime) {
        state.withLock { state in
            guard !state.stopped else { return }
            if let wakeAt = state.wakeAt, wakeAt <= time { return }
            state.wakeAt = time
            state.timer?.cancel()
            let timer = DispatchSource.makeTimerSource(queue: queue)
            let delay = max(0, time.milliseconds - engine.core.now().milliseconds)
            timer.schedule(deadline: .now() + .milliseconds(Int(delay)), leeway: .milliseconds(1))
            timer.setEventHandler { [weak self] in self?.fire() }
            timer.resume()
            state.timer = timer
        }
    }

    private func fire() {
        let shouldRun = state.withLock { state -> Bool in
            state.wakeAt = nil
            state.timer?.cancel()
            state.timer = nil
            guard !state.stopped else { return false }
            guard !state.running else {
                state.rerun = true
                return false
            }
            state.running = true
            return true
        }
        guard shouldRun else { return }
        Task {
            var next: UnixTime?
            repeat {
                do throws(DomainError) {
                    next = try await engine.customers.applyTimeChanges()
                } catch {
                    logFailure(error)
                    // Try again soon: a database hiccup must not stop expiries for good.
                    next = UnixTime(milliseconds: engine.core.now().milliseconds + 1000)
                }
            } while state.withLock { state in
                defer { state.rerun = false }
                if !state.rerun { state.running = false }
                return state.rerun
            }
            if let next { wake(at: next) }
        }
    }
}
