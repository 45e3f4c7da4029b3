import BoundedText
public import RPCCore
import Synchronization

/// `grpc.health.v1.Health` over a thread-safe registry of serving statuses, keyed by service name (`""` is the server
/// as a whole).
///
/// `Check` answers from the registry under one lock and fails with `NOT_FOUND` for a name it has no status for.
/// `Watch` sends the current status at once (`SERVICE_UNKNOWN` for an unknown name, and the call stays open), then
/// one message whenever that status changes, until the client goes away. A watcher that reads slowly holds at most
/// one pending status, the latest: intermediate changes are coalesced, never queued.
public final class HealthService: RPCService {
    public typealias ServingStatus = HealthCheckResponse.ServingStatus

    public static let serviceName = "grpc.health.v1.Health"

    private struct Watcher {
        let service: String
        /// The latest status not yet taken by the watching call.
        var pending: ServingStatus?
        /// The watching call, suspended until there is a status to send.
        var waiter: CheckedContinuation<ServingStatus?, Never>?
        var isCancelled = false
    }

    private struct State {
        var statuses: [String: ServingStatus]
        var watchers: [UInt64: Watcher] = [:]
        var watcherIDsByService: [String: Set<UInt64>] = [:]
        var nextWatcherID: UInt64 = 0
        var isShutDown = false

        /// Records `status` and hands it to the service's watchers; returns the suspended ones to resume, which the
        /// caller does after unlocking. Deciding the value under the lock keeps concurrent updates in order.
        mutating func set(
            _ status: ServingStatus,
            for service: String
        ) -> [(CheckedContinuation<ServingStatus?, Never>, ServingStatus)] {
            statuses[service] = status
            var resumptions: [(CheckedContinuation<ServingStatus?, Never>, ServingStatus)] = []
            for id in watcherIDsByService[service] ?? [] {
                if let waiter = watchers[id]?.waiter {
                    watchers[id]?.waiter = nil
                    resumptions.append((waiter, status))
                } else {
                    watchers[id]?.pending = status
                }
            }
            return resumptions
        }
    }

    private let state: Mutex<State>

    /// - Parameter statuses: the initial registry; by default the server as a whole (`""`) is `SERVING`.
    public init(statuses: [String: ServingStatus] = ["": .serving]) {
        state = Mutex(State(statuses: statuses))
    }

    /// Sets the status of `service` (`""`: the whole server) and notifies its watchers. Ignored after
    /// ``enterShutdown()``, so a service cannot report itself healthy again while the server drains.
    public func setStatus(_ status: ServingStatus, forService service: String) {
        let resumptions = state.withLock { state in
            state.isShutDown ? [] : state.set(status, for: service)
        }
        for (waiter, status) in resumptions { waiter.resume(returning: status) }
    }

    /// Reports every service `router` serves as `SERVING` under its full name, so health checkers can ask about the
    /// service they call (`entitlements.v1.EntitlementService`), not only the server as a whole. Call it once the
    /// router is complete; names it does not serve stay unknown (`Check` answers `NOT_FOUND`).
    public func reportServing(servicesOf router: RPCRouter) {
        for service in router.serviceNames { setStatus(.serving, forService: service) }
    }

    /// The registered status of `service`, nil when it has none.
    public func status(forService service: String) -> ServingStatus? {
        state.withLock { $0.statuses[service] }
    }

    /// Marks the server (`""`) and every registered service `NOT_SERVING`, notifies the watchers, and ignores later
    /// ``setStatus(_:forService:)`` calls: load balancers stop sending new calls while in-flight ones finish.
    public func enterShutdown() {
        let resumptions = state.withLock { state in
            state.isShutDown = true
            var resumptions: [(CheckedContinuation<ServingStatus?, Never>, ServingStatus)] = []
            for service in Set(state.statuses.keys).union([""]) {
                resumptions += state.set(.notServing, for: service)
            }
            return resumptions
        }
        for (waiter, status) in resumptions { waiter.resume(returning: status) }
    }

    public func register(on router: inout RPCRouter) {
        router.registerSynchronousUnary(MethodDescriptor(service: Self.serviceName, method: "Check")) {
            (request: HealthCheckRequest, _) in
            try self.check(request)
        }
        router.registerServerStreaming(MethodDescriptor(service: Self.serviceName, method: "Watch"), endsAtShutdown: true) {
            (request: HealthCheckRequest, responses: ResponseWriter<HealthCheckResponse>, _) in
            try await self.watch(request, responses)
        }
    }

    // MARK: Check

    /// The `Check` answer: one lock, one dictionary lookup, no allocation but the response.
    public func check(_ request: HealthCheckRequest) throws(RPCError) -> HealthCheckResponse {
        guard let status = state.withLock({ $0.statuses[request.service] }) else {
            throw RPCError(code: .notFound, message: "Unknown service \(request.service.quotedForMessage).")
        }
        return HealthCheckResponse(status: status)
    }

    // MARK: Watch

    private func watch(_ request: HealthCheckRequest, _ responses: ResponseWriter<HealthCheckResponse>) async throws {
        let (id, initial) = state.withLock { state in
            let id = state.nextWatcherID
            state.nextWatcherID += 1
            state.watchers[id] = Watcher(service: request.service)
            state.watcherIDsByService[request.service, default: []].insert(id)
            return (id, state.statuses[request.service] ?? .serviceUnknown)
        }
        defer {
            state.withLock { state in
                state.watchers[id] = nil
                state.watcherIDsByService[request.service]?.remove(id)
                if state.watcherIDsByService[request.service]?.isEmpty == true {
                    state.watcherIDsByService[request.service] = nil
                }
            }
        }
        var lastSent = initial
        try await responses.write(HealthCheckResponse(status: initial))
        while let next = await nextStatus(watcher: id) {
            // A change and its reversal coalesced while the client was slow: nothing new to tell it.
            guard next != lastSent else { continue }
            try await responses.write(HealthCheckResponse(status: next))
            lastSent = next
        }
        throw CancellationError()
    }

    /// The watcher's next status, suspending until there is one; nil once the watching task is cancelled.
    private func nextStatus(watcher id: UInt64) async -> ServingStatus? {
        enum Immediate { case status(ServingStatus), cancelled, wait }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<ServingStatus?, Never>) in
                let immediate = state.withLock { state -> Immediate in
                    guard let watcher = state.watchers[id], !watcher.isCancelled, !Task.isCancelled else {
                        return .cancelled
                    }
                    if let pending = watcher.pending {
                        state.watchers[id]?.pending = nil
                        return .status(pending)
                    }
                    state.watchers[id]?.waiter = continuation
                    return .wait
                }
                switch immediate {
                case .status(let status): continuation.resume(returning: status)
                case .cancelled: continuation.resume(returning: nil)
                case .wait: break
                }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                state.watchers[id]?.isCancelled = true
                defer { state.watchers[id]?.waiter = nil }
                return state.watchers[id]?.waiter
            }
            waiter?.resume(returning: nil)
        }
    }
}
