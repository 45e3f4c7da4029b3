import Dispatch

/// Runs async work from libFuzzer's synchronous entry point and waits for it, within a bound: work that has not
/// finished by then is a hang, reported as a crash naming `what` (libFuzzer's own timeout would only say "timeout").
public func runBounded(_ what: @autoclosure () -> String, within limit: Duration, _ body: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task {
        await body()
        done.signal()
    }
    let (seconds, attoseconds) = limit.components
    let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
    if done.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .timedOut {
        fatalError("hang: \(what()) did not finish within \(limit)")
    }
}
