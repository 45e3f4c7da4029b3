import Foundation
import EntitlementsProto

extension Entitlements {
    /// Opens the shared stream when someone observes and the app is in the foreground.
    func openStreamIfWanted() {
        guard stream == nil, !observers.isEmpty, inForeground else { return }
        let generation = generation
        stream = Task { [weak self] in await self?.runStream(generation: generation) }
    }

    func closeStream() {
        stream?.cancel()
        stream = nil
        reconnectWait?.cancel()
    }

    /// Opens the stream, reads it until it ends, and reopens it after a backoff from the last version seen, until
    /// cancelled or the user changes. The backoff resets after a stream that delivered and stayed up a while.
    private func runStream(generation: Int) async {
        var attempt = 0
        /// Whether the stream before this one ended on a refused user token: a second refusal in a row with nothing
        /// delivered between waits out the backoff (the app's tokens are refused, and asking at once would only load
        /// the server).
        var tokenRefused = false
        while !Task.isCancelled, generation == self.generation {
            let opened = configuration.clock.now()
            var delivered = false
            do {
                try await identifyIfNeeded()
                guard !Task.isCancelled, generation == self.generation else { return }
                streamsOpened += 1
                let (appUserID, afterVersion) = (identity.appUserID, server.version)
                log(.debug, "StreamStatus for \(appUserID) after version \(afterVersion).")
                for try await event in transport.streamStatus(appUserID: appUserID, afterVersion: afterVersion) {
                    delivered = true
                    if let customer = event.customer, event.kind != .heartbeat {
                        await publishServer(customer, generation: generation)
                    }
                }
                log(.info, "The status stream ended; reconnecting.")
            } catch {
                guard !Task.isCancelled, generation == self.generation else { return }
                if let error = error as? EntitlementsError, error.code == .notFound {
                    // Erased: the person asked to be forgotten, so the SDK does not bring the ID back.
                    // Not from this task: logging out replaces the stream this task runs.
                    guard !error.message.hasPrefix(Self.deletedPrefix) else {
                        Task { await self.loggedOutByServer() }
                        return
                    }
                    serverForgotCustomer()
                }
                if let error = error as? EntitlementsError, error.refusesUserToken, let tokens = transport.userTokens {
                    // Its token expired (or was refused): a new stream with a fresh one, from the last version seen.
                    await tokens.refused(for: identity.appUserID)
                    log(.info, "The status stream's user token was refused; reopening with a fresh one.")
                    let immediately = !tokenRefused || delivered
                    tokenRefused = true
                    if immediately { continue }
                } else {
                    tokenRefused = false
                }
                if let error = error as? EntitlementsError, error.isUnreachable { serverUnreachable() }
                log(.info, "The status stream failed (\(error)); reconnecting.")
            }
            guard !Task.isCancelled else { return }
            let upFor = configuration.clock.now().timeIntervalSince(opened)
            if delivered, upFor >= Self.seconds(configuration.backoff.healthyAfter) { attempt = 0 }
            let delay = configuration.jitter(configuration.backoff.step(attempt: attempt))
            attempt += 1
            await waitBeforeReconnect(delay)
        }
    }

    /// Waits `delay`, or less if the network comes back (``networkChanged()`` ends the wait) or the stream is closed.
    private func waitBeforeReconnect(_ delay: Duration) async {
        let sleep = configuration.clock.sleep
        let wait = Task { try await sleep(delay) }
        reconnectWait = wait
        await withTaskCancellationHandler {
            _ = await wait.result
        } onCancel: {
            wait.cancel()
        }
        if reconnectWait == wait { reconnectWait = nil }
    }
}
