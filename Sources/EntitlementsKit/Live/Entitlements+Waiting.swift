import Foundation

/// A caller of `status(atLeast:)`, resumed by the next publish that reaches its version, by the end of its wait,
/// by cancellation or by a change of user; it then looks again.
struct VersionWaiter {
    var generation: Int
    var version: UInt64
    var continuation: CheckedContinuation<Void, Never>
}

extension Entitlements {
    /// The status once the server's answer has caught up with `version` (a purchase's, say). It waits for the
    /// stream, and asks the server (`SyncStatus`) when no stream is open and after every `pollInterval` without the
    /// version, so a stream that is down or reconnecting does not hold it up.
    ///
    /// - Throws: ``EntitlementsError`` `deadlineExceeded` after `timeout`, `cancelled` when the user changes or the
    ///   task is cancelled, and what `SyncStatus` throws.
    public func status(
        atLeast version: UInt64, timeout: Duration = .seconds(30), pollInterval: Duration = .seconds(2)
    ) async throws -> StatusSnapshot {
        let generation = generation
        let deadline = configuration.clock.now().addingTimeInterval(Self.seconds(timeout))
        var asked = stream != nil
        while true {
            try checkUser(generation)
            if server.origin == .server, server.version >= version { return current }
            if Task.isCancelled { throw EntitlementsError(code: .cancelled, message: "The wait was cancelled.") }
            let remaining = deadline.timeIntervalSince(configuration.clock.now())
            guard remaining > 0 else {
                throw EntitlementsError(
                    code: .deadlineExceeded, message: "The server's status did not reach version \(version) in time.")
            }
            if !asked {
                try await refresh()
                asked = true
                continue
            }
            await waitForPublish(
                of: version, generation: generation, upTo: min(pollInterval, .milliseconds(Int64(remaining * 1000))))
            asked = false
        }
    }

    private func waitForPublish(of version: UInt64, generation: Int, upTo slice: Duration) async {
        let id = UUID()
        let sleep = configuration.clock.sleep
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                waiters[id] = VersionWaiter(generation: generation, version: version, continuation: continuation)
                Task { [weak self] in
                    try? await sleep(slice)
                    await self?.resumeWaiter(id)
                }
            }
        } onCancel: {
            Task { [weak self] in await self?.resumeWaiter(id) }
        }
    }

    func resumeWaiter(_ id: UUID) {
        waiters.removeValue(forKey: id)?.continuation.resume()
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
