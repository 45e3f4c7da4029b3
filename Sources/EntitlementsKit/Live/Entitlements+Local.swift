import Foundation

extension Entitlements {
    /// Reads what the local source shows now and (unless `publishing` is false) publishes the combination.
    func rereadLocal(publishing: Bool = true) async {
        guard let source = configuration.localSource else { return }
        let generation = generation
        let transactions = await source.currentEntitlements()
        guard generation == self.generation else { return }
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
        local.removeAll {
            $0.transactionID == transaction.transactionID || $0.originalTransactionID == transaction.originalTransactionID
        }
        if transaction.isActive(at: configuration.clock.now()) { local.append(transaction) }
        scheduleLocalExpiry()
        republish()
        await forward(transaction)
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
    func scheduleLocalExpiry() {
        localExpiry?.cancel()
        let now = configuration.clock.now()
        guard let next = local.compactMap(\.expiresAt).filter({ $0 > now }).min() else { return }
        let sleep = configuration.clock.sleep
        let wait = Duration.milliseconds(Int64((next.timeIntervalSince(now) * 1000).rounded(.up)))
        localExpiry = Task { [weak self] in
            guard (try? await sleep(wait)) != nil else { return }
            await self?.localEntitlementExpired()
        }
    }

    private func localEntitlementExpired() {
        republish()
        scheduleLocalExpiry()
    }
}
