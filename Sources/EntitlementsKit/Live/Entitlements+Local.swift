import Foundation

extension Entitlements {
    /// Reads what the local source shows now and (unless `publishing` is false) publishes the combination.
    func rereadLocal(publishing: Bool = true) async {
        guard let source = configuration.localSource else { return }
        let (generation, updatesBefore) = (generation, localUpdateCount)
        var transactions = await source.currentEntitlements()
        guard generation == self.generation else { return }
        // Updates that arrived during the read may be newer than what it returned (a refund, say): they stand.
        for (number, transaction) in localUpdateLog where number > updatesBefore {
            Self.apply(transaction, to: &transactions, at: configuration.clock.now())
        }
        local = transactions
        scheduleLocalExpiry()
        if publishing { republish() }
    }

    /// Forwards what the local source shows and the server does not: a purchase the server never heard of (made
    /// offline, or before the SDK was added).
    func forwardLocalNotShown() async {
        let shown = server.status.entitlements
        for transaction in local where transaction.isActive(at: configuration.clock.now()) {
            // A purchase the server holds already needs no second trip.
            guard !shown.contains(where: { $0.source == .appStore && $0.productID == transaction.productID }) else {
                continue
            }
            await forward(transaction)
        }
    }

    /// A transaction from the local source's updates: a purchase, a renewal, or a refund or revocation (which
    /// may come under a transaction ID already seen). Shown locally at once, then forwarded.
    func receivedLocal(_ transaction: LocalTransaction) async {
        localUpdateCount += 1
        localUpdateLog.append((localUpdateCount, transaction))
        if localUpdateLog.count > 64 { localUpdateLog.removeFirst() }
        Self.apply(transaction, to: &local, at: configuration.clock.now())
        scheduleLocalExpiry()
        republish()
        await forward(transaction)
    }

    /// A transaction replaces what the list held for its purchase (a renewal, a refund); it stays only while active.
    private static func apply(_ transaction: LocalTransaction, to list: inout [LocalTransaction], at now: Date) {
        list.removeAll {
            $0.transactionID == transaction.transactionID || $0.originalTransactionID == transaction.originalTransactionID
        }
        if transaction.isActive(at: now) { list.append(transaction) }
    }

    /// Sends a local transaction to the server unless it was accepted already in this run; finishes it once the
    /// server accepted it. One the server cannot be reached for waits in `unforwarded`; one it refused for good
    /// (a product it does not know) is not finished and not sent again in this run.
    func forward(_ transaction: LocalTransaction) async {
        let key = transaction.forwardingKey
        guard !forwarded.contains(key), let source = configuration.localSource else { return }
        forwarded.insert(key)
        do {
            _ = try await purchase(signedTransaction: transaction.signedTransaction)
            unforwarded[key] = nil
            log(.info, "Forwarded App Store transaction \(transaction.transactionID) (\(transaction.productID)).")
            await source.finish(transaction)
        } catch let error as EntitlementsError where error.isRetryable || error.code == .cancelled {
            forwarded.remove(key)
            unforwarded[key] = transaction
            log(.warning, "Could not forward transaction \(transaction.transactionID) yet: \(error)")
        } catch {
            unforwarded[key] = nil
            log(.error, "The server refused transaction \(transaction.transactionID): \(error)")
        }
    }

    func forwardUnforwarded() async {
        for transaction in unforwarded.values { await forward(transaction) }
    }

    /// Re-evaluates the combination when the first local entitlement expires, so access the device alone granted
    /// ends on time even with no server answer.
    func scheduleLocalExpiry(after previous: Date? = nil) {
        localExpiry?.cancel()
        let now = configuration.clock.now()
        let after = max(now, previous ?? now)
        guard let next = local.compactMap(\.expiresAt).filter({ $0 > after }).min() else { return }
        let clock = configuration.clock
        localExpiry = Task { [weak self] in
            // Measured when the task runs, which may be a while after it was made.
            let remaining = next.timeIntervalSince(clock.now())
            if remaining > 0 {
                guard (try? await clock.sleep(.milliseconds(Int64((remaining * 1000).rounded(.up))))) != nil else { return }
            }
            await self?.localEntitlementExpired(next)
        }
    }

    /// Re-arms for the expiry after `expiry` only, so a clock whose sleep returns early cannot make it spin.
    private func localEntitlementExpired(_ expiry: Date) {
        republish()
        scheduleLocalExpiry(after: expiry)
    }
}
