import BoundedText
public import CivilCalendar
public import EntitlementDomain
import GooglePlay
import GooglePlayAPI
public import RPCCore

/// Acknowledges Google Play purchases from the server, whatever brought them in (Purchase, Restore, a notification),
/// so none is refunded because a device never came back to do it. Works from the durable record kept with each
/// purchase: an acknowledgement owed when the server stops is sent after it starts again, and one that Google
/// refuses is retried with growing delays until ``Schedule/maxAttempts``, then reported (log, customer event,
/// `GetCustomer`).
///
/// One instance of those sharing the database acknowledges. Each attempt is claimed in the database before it is sent
/// (``StoreAcknowledgements/begin(_:retryAt:)``), and an attempt after an earlier one first asks Google whether the
/// purchase is acknowledged already. So a holder frozen mid-batch that resumes after another took over sends none of
/// the rest of its batch, and one frozen with an acknowledgement in flight does not have it sent again: the next
/// holder finds it acknowledged. Only a holder frozen between claiming an attempt and sending it may send it after
/// the next holder did; Google then answers that it is acknowledged already, which is success.
public final class PlayAcknowledger: Sendable {
    /// When a failed attempt is tried again.
    public struct Schedule: Sendable {
        public var firstRetry: Duration
        public var maxDelay: Duration
        public var maxAttempts: Int

        /// The defaults keep trying for about a day and a half, inside Google's three days.
        public init(firstRetry: Duration = .seconds(30), maxDelay: Duration = .seconds(Seconds.perHour), maxAttempts: Int = 40) {
            self.firstRetry = firstRetry
            self.maxDelay = maxDelay
            self.maxAttempts = max(1, maxAttempts)
        }

        /// The wait after the `attempts`-th failure; nil when that was the last attempt.
        func delay(afterAttempts attempts: Int) -> Duration? {
            guard attempts < maxAttempts else { return nil }
            var delay = firstRetry
            for _ in 1..<max(1, attempts) where delay < maxDelay { delay *= 2 }
            return min(delay, maxDelay)
        }
    }

    static let batchSize = 20

    private let engine: CustomerEngine
    private let tenants: TenantRegistry
    private let purchases: PlayStorePurchases
    private let log: Logger
    private let schedule: Schedule
    private let loop = WakeableLoop()
    private let holding: WorkHolding

    public init(engine: CustomerEngine, tenants: TenantRegistry, purchases: PlayStorePurchases, log: Logger, schedule: Schedule) {
        self.engine = engine
        self.tenants = tenants
        self.purchases = purchases
        self.log = log
        self.schedule = schedule
        holding = WorkHolding("play_acknowledgements", engine: engine, log: log)
    }

    public func start() {
        loop.start { [self] in await runDue() }
    }

    public func stop() async { await loop.stop() }

    /// Something new may be owed: look now.
    public func wake() { loop.wake() }

    /// Sends what is due; returns how long until the next is.
    func runDue() async -> Duration {
        do throws(DomainError) {
            // One instance of those sharing the database acknowledges; the others ask again shortly, so one takes
            // over when the holder stops.
            guard holding.holds() else { return WorkHolding.retryInterval }
            let due = try engine.acknowledgements.due(limit: Self.batchSize)
            var recorded = true
            for purchase in due {
                // Held still? A holder frozen mid-batch may have lost the work meanwhile.
                guard holding.holds() else { return WorkHolding.retryInterval }
                if !(await acknowledge(purchase)) { recorded = false }
            }
            // An attempt that could not be recorded is still due: wait for storage rather than call Google again
            // and again.
            guard recorded else { return .seconds(5) }
            if due.count == Self.batchSize { return .zero }
            // Acknowledgements owed through other instances wake only theirs: look again within the retry interval.
            guard let next = try engine.acknowledgements.nextDue() else { return WorkHolding.retryInterval }
            let wait = next.milliseconds - engine.now().milliseconds
            return .milliseconds(min(max(0, wait), WorkHolding.retryInterval.milliseconds))
        } catch {
            log.error("reading acknowledgements due failed", ["error": error.message])
            return .seconds(5)
        }
    }

    /// One attempt, claimed and recorded; false when either failed.
    private func acknowledge(_ due: StorePurchase) async -> Bool {
        let purchase: StorePurchase
        do throws(DomainError) {
            // Due again after the usual wait should this attempt's outcome never be recorded.
            let wait = schedule.delay(afterAttempts: min(due.acknowledgement.attempts, schedule.maxAttempts) + 1) ?? schedule.maxDelay
            let retryAt = UnixTime(milliseconds: engine.now().milliseconds + wait.milliseconds)
            // Nil: no longer pending, or another instance claimed it since it was read.
            guard let claimed = try await engine.acknowledgements.begin(due, retryAt: retryAt) else { return true }
            purchase = claimed
        } catch {
            log.error("claiming a play acknowledgement failed", ["tenant": due.tenantID, "error": error.message])
            return false
        }
        let fields: KeyValuePairs<String, String> = [
            "tenant": purchase.tenantID, "product_id": purchase.productID, "order_id": purchase.transactionID,
        ]
        let attempt: AcknowledgementAttempt
        switch await send(purchase, askFirst: due.acknowledgement.attempts > 0) {
        case .success(true):
            attempt = .acknowledged
            log.info("play purchase acknowledged", fields)
        case .success(false):
            attempt = .noLongerOwed
            log.info("play purchase no longer needs acknowledging (canceled, refunded or expired)", fields)
        case .failure(let error):
            let attempts = purchase.acknowledgement.attempts
            if let delay = schedule.delay(afterAttempts: attempts), error.code != .notFound {
                let retryAt = UnixTime(milliseconds: engine.now().milliseconds + delay.milliseconds)
                attempt = .failed(error: error.message.truncated(toUTF8Bytes: 500), retryAt: retryAt)
                log.warning(
                    "play acknowledgement failed; will retry",
                    ["tenant": purchase.tenantID, "order_id": purchase.transactionID, "attempt": String(attempts),
                     "error": error.message])
            } else {
                attempt = .gaveUp(error: error.message.truncated(toUTF8Bytes: 500))
                log.error(
                    "play acknowledgement failed for good: Google refunds unacknowledged purchases after three days",
                    ["tenant": purchase.tenantID, "order_id": purchase.transactionID, "attempts": String(attempts),
                     "error": error.message])
            }
        }
        do throws(DomainError) {
            try await engine.acknowledgements.record(of: purchase, attempt)
            return true
        } catch {
            // A later run finds it still due and sends it again; Google's "already acknowledged" is then success.
            log.error("recording a play acknowledgement failed", ["tenant": purchase.tenantID, "error": error.message])
            return false
        }
    }

    /// One acknowledgement: true when it is acknowledged, false when nothing is owed any more. Google refusing it (400)
    /// is checked against the purchase: acknowledged by someone else is success; a purchase no longer paid for
    /// (canceled, refunded, expired) owes nothing. With `askFirst` (an earlier attempt failed, or its outcome was
    /// never recorded, and it may have reached Google), the purchase is checked before anything is sent.
    private func send(_ purchase: StorePurchase, askFirst: Bool) async -> Result<Bool, GooglePlayAPIError> {
        guard let tenant = tenants.directory.tenant(id: purchase.tenantID) else {
            return .failure(GooglePlayAPIError(.notFound, "tenant '\(purchase.tenantID)' is no longer configured"))
        }
        let api: PlayDeveloperAPI
        do throws(DomainError) {
            api = try purchases.api(for: tenant)
        } catch {
            return .failure(GooglePlayAPIError(.configuration, error.message))
        }
        let token = purchase.originalTransactionID
        let isSubscription = purchase.productType == PlayProductType.subscription.rawValue
        if askFirst, let settled = await settled(purchase, api: api) { return .success(settled) }
        do throws(GooglePlayAPIError) {
            if isSubscription {
                try await api.acknowledgeSubscription(subscriptionID: purchase.productID, token: token)
            } else {
                try await api.acknowledgeProduct(productID: purchase.productID, token: token)
            }
            return .success(true)
        } catch where error.code == .invalidRequest {
            if let settled = await settled(purchase, api: api) { return .success(settled) }
            return .failure(error)
        } catch {
            return .failure(error)
        }
    }

    /// What Google's purchase says: true when it is acknowledged, false when nothing is owed any more (canceled,
    /// refunded, expired); nil when an acknowledgement is still owed, or Google did not say.
    private func settled(_ purchase: StorePurchase, api: PlayDeveloperAPI) async -> Bool? {
        let token = purchase.originalTransactionID
        if purchase.productType == PlayProductType.subscription.rawValue {
            guard let current = try? await api.subscription(token: token) else { return nil }
            if current.acknowledgementState?.known == .acknowledged { return true }
            let state = current.subscriptionState?.known
            return state == .expired || state == .pendingPurchaseCanceled ? false : nil
        }
        guard let current = try? await api.product(productID: purchase.productID, token: token) else { return nil }
        if current.isAcknowledged { return true }
        return current.state == .canceled ? false : nil
    }
}

extension Duration {
    /// Whole milliseconds, rounded down.
    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}
