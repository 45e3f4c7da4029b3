import Synchronization

/// A background task that runs a body, sleeps for as long as the body asks, and runs it again; ``wake()`` cuts the
/// sleep short (new work was committed). One run at a time, so the body needs no locking of its own.
final class WakeableLoop: Sendable {
    private struct State {
        var task: Task<Void, Never>?
        var sleeper: Task<Void, Never>?
        /// A wake that came while the body ran: skip the next sleep.
        var wokenDuringRun = false
        var stopped = false
    }

    private let state = Mutex(State())

    /// Starts the loop; `body` returns how long to sleep before the next run.
    func start(_ body: @escaping @Sendable () async -> Duration) {
        let task = Task {
            while true {
                let delay = await body()
                let sleeper = Task { _ = try? await Task.sleep(for: delay) }
                let skip = state.withLock { state in
                    if state.stopped || state.wokenDuringRun {
                        state.wokenDuringRun = false
                        return true
                    }
                    state.sleeper = sleeper
                    return false
                }
                if skip { sleeper.cancel() }
                await sleeper.value
                let stopped = state.withLock { state in
                    state.sleeper = nil
                    return state.stopped
                }
                if stopped { return }
            }
        }
        state.withLock { $0.task = task }
    }

    /// Runs the body again now (or right after the run in progress).
    func wake() {
        state.withLock { state in
            if let sleeper = state.sleeper { sleeper.cancel() } else { state.wokenDuringRun = true }
        }
    }

    /// Ends the loop once the run in progress, if any, is over.
    func stop() async {
        let task = state.withLock { state in
            state.stopped = true
            state.sleeper?.cancel()
            return state.task
        }
        await task?.value
    }
}
