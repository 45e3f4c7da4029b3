import CivilCalendar
import RequestTracing
public import EntitlementDomain
public import RPCCore
import StandardWebhooks
import Synchronization

/// Sends the outbox: every pending delivery, soonest first, each customer's in version order to each endpoint,
/// within ``WebhookCapacity``'s bounds, retried on ``WebhookRetrySchedule`` until delivered or given up.
///
/// Deliveries are leased while their attempt runs (so a crash mid-attempt sends them again, with the same
/// `webhook-id`, when the lease ends or the server restarts), and the results of attempts that finish together are
/// written in one transaction. Nothing here runs on a request's path: a hanging endpoint costs its own slots only.
public final class WebhookDispatcher: Sendable {
    public struct Settings: Sendable {
        public var schedule: WebhookRetrySchedule
        public var capacity: WebhookCapacity.Limits
        /// How many due deliveries one claim considers.
        public var batchSize: Int

        public init(
            schedule: WebhookRetrySchedule = WebhookRetrySchedule(), capacity: WebhookCapacity.Limits = .init(),
            batchSize: Int = 200
        ) {
            self.schedule = schedule
            self.capacity = capacity
            self.batchSize = max(1, batchSize)
        }
    }

    /// An attempt's lease outlasts the longest attempt (the outbound client's 15 s timeout) with room to record it.
    static let leaseMilliseconds = Milliseconds.perMinute
    /// How long the loop sleeps with nothing due (a commit wakes it sooner).
    static let idleWait: Duration = .seconds(30)

    private struct State {
        var capacity: WebhookCapacity
        /// Attempts finished and not yet recorded.
        var finished: [WebhookAttemptResult] = []
        var leasesReleased = false
    }

    private let engine: CustomerEngine
    private let tenants: TenantRegistry
    private let deliverer: WebhookDeliverer
    private let settings: Settings
    private let log: Logger
    private let loop = WakeableLoop()
    private let state: Mutex<State>

    public init(
        engine: CustomerEngine, tenants: TenantRegistry, deliverer: WebhookDeliverer, settings: Settings, log: Logger
    ) {
        self.engine = engine
        self.tenants = tenants
        self.deliverer = deliverer
        self.settings = settings
        self.log = log
        state = Mutex(State(capacity: WebhookCapacity(limits: settings.capacity)))
    }

    public func start() {
        engine.outbox.onQueued { [weak self] in self?.loop.wake() }
        loop.start { [self] in await run() }
    }

    /// Returns once the run in progress is over; attempts still in flight finish or are sent again after a restart.
    public func stop() async { await loop.stop() }

    /// One pass: record what finished, start what is due and fits; returns how long to sleep.
    func run() async -> Duration {
        do throws(DomainError) {
            if !state.withLock({ $0.leasesReleased }) {
                try await engine.outbox.releaseLeases()
                state.withLock { $0.leasesReleased = true }
            }
            let started = try await exchange()
            let free = state.withLock { $0.capacity.free }
            if started.filled && free > 0 { return .zero }
            // Every slot busy: a finishing attempt wakes the loop.
            if free == 0 { return Self.idleWait }
            guard let next = try engine.outbox.nextAttemptAt() else { return Self.idleWait }
            let wait = next.milliseconds - engine.now().milliseconds
            // Due yet not claimed: behind an earlier event of its customer, or held back by a busy endpoint or tenant;
            // a finishing attempt wakes the loop.
            guard wait > 0 else { return .milliseconds(250) }
            return .milliseconds(min(wait, 30_000))
        } catch {
            log.error("webhook dispatch failed; trying again shortly", ["error": error.message])
            return .seconds(2)
        }
    }

    /// Records what finished and claims what is due and fits, in one transaction; starts an attempt for each
    /// claimed delivery.
    private func exchange() async throws(DomainError) -> (count: Int, filled: Bool) {
        let directory = tenants.directory
        let (finished, capacity) = state.withLock { state in
            defer { state.finished = [] }
            return (state.finished, state.capacity)
        }
        let excluded = capacity.saturatedEndpoints { directory.tenant(id: $0)?.webhooks.map(\.id) ?? [] }
        let limit = capacity.free > 0 ? settings.batchSize : 0
        let claimed: [WebhookDelivery]
        do throws(DomainError) {
            claimed = try await engine.outbox.exchange(
                recording: finished, claimLimit: limit, excludedEndpoints: excluded,
                leaseMilliseconds: Self.leaseMilliseconds
            ) { candidates in
                var copy = capacity
                return copy.admit(candidates)
            }
        } catch {
            // Still leased: they are sent again when the lease ends, with the same webhook-id.
            log.error("recording webhook attempts failed", ["count": String(finished.count), "error": error.message])
            throw error
        }
        guard !claimed.isEmpty else { return (0, false) }
        let disabled = Set(
            try engine.outbox.disabledEndpoints().map { WebhookEndpointKey(tenantID: $0.tenantID, endpointID: $0.endpointID) })
        for delivery in claimed {
            let key = WebhookEndpointKey(tenantID: delivery.tenantID, endpointID: delivery.endpointID)
            state.withLock { $0.capacity.start(key) }
            let endpoint = directory.tenant(id: delivery.tenantID)?.webhooks.first { $0.id == delivery.endpointID }
            guard let endpoint, !disabled.contains(key) else {
                let why =
                    endpoint == nil
                    ? "not sent: the tenant no longer configures this endpoint"
                    : "not sent: the endpoint was disabled when it answered 410 Gone"
                finish(
                    key,
                    WebhookAttemptResult(
                        delivery: delivery, attemptedAt: engine.now(), status: nil, error: why, verdict: .undeliverable))
                continue
            }
            // Under the request ID of the call that queued it, so its lines join that call's.
            Task { [self] in
                let result = await RequestID.$taskValue.withValue(delivery.requestID.isEmpty ? nil : delivery.requestID) {
                    await attempt(delivery, to: endpoint)
                }
                finish(key, result)
            }
        }
        return (claimed.count, claimed.count >= limit)
    }

    private func finish(_ key: WebhookEndpointKey, _ result: WebhookAttemptResult) {
        state.withLock { state in
            state.capacity.finish(key)
            state.finished.append(result)
        }
        loop.wake()
    }

    /// One attempt, judged: 2xx delivered; 410 disables the endpoint; anything else is retried on the schedule
    /// (never sooner than a 429's or 503's `Retry-After`), or gives the delivery up after the last attempt.
    private func attempt(_ delivery: WebhookDelivery, to endpoint: WebhookEndpoint) async -> WebhookAttemptResult {
        let attemptedAt = engine.now()
        guard let id = try? WebhookMessageID(delivery.messageID) else {
            return WebhookAttemptResult(
                delivery: delivery, attemptedAt: attemptedAt, status: nil,
                error: "not sent: the stored webhook-id is not a valid message ID", verdict: .exhausted)
        }
        let outcome = await deliverer.attempt(delivery.body, id: id, to: endpoint)
        log.info(
            "webhook attempt",
            ["tenant": delivery.tenantID, "endpoint": delivery.endpointID, "webhook_id": delivery.messageID,
             "type": delivery.type, "attempt": String(delivery.attempts + 1),
             "status": outcome.status.map(String.init) ?? "none", "delivered": outcome.delivered ? "yes" : "no",
             "error": outcome.error])
        let verdict: WebhookAttemptResult.Verdict
        if outcome.delivered {
            verdict = .delivered
        } else if outcome.status == 410 {
            verdict = .endpointGone
            log.warning(
                "webhook endpoint answered 410 Gone: disabled until a redelivery",
                ["tenant": delivery.tenantID, "endpoint": delivery.endpointID])
        } else {
            let throttled = outcome.status == 429 || outcome.status == 503
            let next = settings.schedule.nextAttempt(
                afterAttempts: delivery.attempts + 1, at: engine.now(),
                retryAfterSeconds: throttled ? outcome.retryAfterSeconds : nil, random: Double.random(in: 0..<1))
            verdict = next.map { .retry(at: $0) } ?? .exhausted
            if next == nil {
                log.error(
                    "webhook delivery given up after the last attempt (webhook.exhausted)",
                    ["tenant": delivery.tenantID, "endpoint": delivery.endpointID, "webhook_id": delivery.messageID,
                     "attempts": String(delivery.attempts + 1), "error": outcome.error])
            }
        }
        return WebhookAttemptResult(
            delivery: delivery, attemptedAt: attemptedAt, status: outcome.status, error: outcome.error, verdict: verdict)
    }
}
