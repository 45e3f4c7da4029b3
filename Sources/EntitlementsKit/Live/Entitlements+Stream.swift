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

    /// Opens the stream, reads it until it ends, and reopens it after a backoff (reset once an event arrived), from
    /// the last version seen, until cancelled or the user changes.
    private func runStream(generation: Int) async {
        var attempt = 0
        var random = SystemRandomNumberGenerator()
        while !Task.isCancelled, generation == self.generation {
            do {
                try await identifyIfNeeded()
                streamsOpened += 1
                let afterVersion = server.version
                log(.debug, "StreamStatus for \(identity.appUserID) after version \(afterVersion).")
                for try await event in transport.streamStatus(appUserID: identity.appUserID, afterVersion: afterVersion) {
                    attempt = 0
                    if let customer = event.customer, event.kind != .heartbeat {
                        await publishServer(customer, generation: generation)
                    }
                }
                log(.info, "The status stream ended; reconnecting.")
            } catch {
                guard !Task.isCancelled else { return }
                // A customer the server does not know (a database reset, say): identify again on the next try.
                if (error as? EntitlementsError)?.code == .notFound { identifiedOnServer = false }
                log(.info, "The status stream failed (\(error)); reconnecting.")
            }
            guard !Task.isCancelled else { return }
            let delay = configuration.backoff.delay(attempt: attempt, using: &random)
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
        reconnectWait = nil
    }
}
