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

    public init(engine: CustomerEngine, tenants: TenantRegistry, purchases: PlayStorePurchases, log: Logger, schedule: Schedule) {
        self.engine = engine
        self.tenants = tenants
        self.purchases = purchases
        self.log = log
        self.schedule = schedule
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
            // One instance of those sharing the database acknowledges; another takes over when it ends.
            guard try engine.holdsWork(name: "play_acknowledgements") else { return .seconds(60) }
            let due = try engine.acknowledgements.due(limit: Self.batchSize)
            var recorded = true
            for purchase in due where !(await acknowledge(purchase)) { recorded = false }
            // An attempt that could not be recorded is still due: wait for storage rather than call Google again
            // and again.
            guard recorded else { return .seconds(5) }
            if due.count == Self.batchSize { return .zero }
            guard let next = try engine.acknowledgements.nextDue() else { return .seconds(60) }
            let wait = next.milliseconds - engine.now().milliseconds
            return .milliseconds(min(max(0, wait), Milliseconds.perMinute))
        } catch {
            log.error("reading acknowledgements due failed", ["error": error.message])
            return .seconds(5)
        }
    }

    /// One attempt, recorded; false when recording it failed.
    private func acknowledge(_ purchase: StorePurchase) async -> Bool {
        let fields: KeyValuePairs<String, String> = [
            "tenant": purchase.tenantID, "product_id": purchase.productID, "order_id": purchase.transactionID,
        ]
        let attempt: AcknowledgementAttempt
        switch await send(purchase) {
        case .success(true):
            attempt = .acknowledged
            log.info("play purchase acknowledged", fields)
        case .success(false):
            attempt = .noLongerOwed
            log.info("play purchase no longer needs acknowledging (canceled, refunded or expired)", fields)
        case .failure(let error):
            let attempts = purchase.acknowledgement.attempts + 1
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
    /// (canceled, refunded, expired) owes nothing.
    private func send(_ purchase: StorePurchase) async -> Result<Bool, GooglePlayAPIError> {
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
        do throws(GooglePlayAPIError) {
            if isSubscription {
                try await api.acknowledgeSubscription(subscriptionID: purchase.productID, token: token)
            } else {
                try await api.acknowledgeProduct(productID: purchase.productID, token: token)
            }
            return .success(true)
        } catch where error.code == .invalidRequest {
            if isSubscription, let current = try? await api.subscription(token: token) {
                if current.acknowledgementState?.known == .acknowledged { return .success(true) }
                let state = current.subscriptionState?.known
                if state == .expired || state == .pendingPurchaseCanceled { return .success(false) }
            } else if !isSubscription, let current = try? await api.product(productID: purchase.productID, token: token) {
                if current.isAcknowledged { return .success(true) }
                if current.state == .canceled { return .success(false) }
            }
            return .failure(error)
        } catch {
            return .failure(error)
        }
    }
}

extension Duration {
    /// Whole milliseconds, rounded down.
    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}
