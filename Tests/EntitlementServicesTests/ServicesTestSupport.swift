import EntitlementClient
import EntitlementDomain
import EntitlementServices
import EntitlementsProto
import ProtobufWire
import RPCCore
import Synchronization
import Testing
import TestSupport

extension EntitlementTestServer {
    /// A client on its own connection, sending `key` (none when nil) as `authorization: Bearer <key>`. Its calls
    /// may take 30 s: on a 2-core machine, suites that wait for a Python child synchronously can hold both threads
    /// of the cooperative pool for seconds; a hang still fails.
    func makeClient(key: String?) throws -> EntitlementClient {
        try EntitlementClient(configuration: clientConfiguration, apiKey: key, defaultTimeout: .seconds(60))
    }

    /// ``makeClient(key:)`` wrapped in ``Calls``.
    func calls(key: String?) throws -> Calls {
        Calls(client: try makeClient(key: key))
    }
}

/// The entitlement RPCs through the generic `unary`/`serverStreaming` of ``EntitlementClient``, so these tests do
/// not depend on its typed convenience methods.
struct Calls: Sendable {
    static let identifyMethod = MethodDescriptor(service: EntitlementService.serviceName, method: "Identify")
    static let syncStatusMethod = MethodDescriptor(service: EntitlementService.serviceName, method: "SyncStatus")
    static let streamStatusMethod = MethodDescriptor(service: EntitlementService.serviceName, method: "StreamStatus")
    static let grantMethod = MethodDescriptor(service: AdminService.serviceName, method: "GrantEntitlement")
    static let revokeMethod = MethodDescriptor(service: AdminService.serviceName, method: "RevokeGrant")
    static let getCustomerMethod = MethodDescriptor(service: AdminService.serviceName, method: "GetCustomer")
    static let listEventsMethod = MethodDescriptor(service: AdminService.serviceName, method: "ListCustomerEvents")

    let client: EntitlementClient

    @discardableResult
    func identify(_ appUserID: String, anonymousID: String = "") async throws -> IdentifyResponse {
        try await client.unary(
            Self.identifyMethod, EntitlementsProto.IdentifyRequest(appUserID: appUserID, anonymousID: anonymousID),
            as: IdentifyResponse.self)
    }

    func sync(_ appUserID: String) async throws -> CustomerStatus {
        let response = try await client.unary(
            Self.syncStatusMethod, SyncStatusRequest(appUserID: appUserID), as: SyncStatusResponse.self)
        return try #require(response.customer)
    }

    @discardableResult
    func grant(
        _ appUserID: String, _ entitlementID: String = "pro", duration: Duration? = nil,
        expiresAt: ProtoTimestamp? = nil, idempotencyKey: String = "", reason: String = ""
    ) async throws -> Grant {
        try await client.unary(
            Self.grantMethod,
            GrantEntitlementRequest(
                appUserID: appUserID, entitlementID: entitlementID, expiresAt: expiresAt,
                duration: duration.map(ProtoDuration.init), reason: reason, idempotencyKey: idempotencyKey),
            as: Grant.self)
    }

    func revoke(_ grantID: String, reason: String = "") async throws -> Grant {
        try await client.unary(Self.revokeMethod, RevokeGrantRequest(grantID: grantID, reason: reason), as: Grant.self)
    }

    func customer(_ appUserID: String) async throws -> Customer {
        try await client.unary(Self.getCustomerMethod, GetCustomerRequest(appUserID: appUserID), as: Customer.self)
    }

    func events(_ appUserID: String, pageSize: Int32 = 0, pageToken: String = "") async throws
        -> ListCustomerEventsResponse
    {
        try await client.unary(
            Self.listEventsMethod,
            ListCustomerEventsRequest(appUserID: appUserID, pageSize: pageSize, pageToken: pageToken),
            as: ListCustomerEventsResponse.self)
    }

    /// Opens StreamStatus; the recorder collects events as they arrive.
    func stream(_ appUserID: String, afterVersion: UInt64 = 0) -> StreamRecorder {
        StreamRecorder(
            client.serverStreaming(
                Self.streamStatusMethod, StreamStatusRequest(appUserID: appUserID, afterVersion: afterVersion),
                as: StatusEvent.self, timeout: .seconds(60)))
    }

    func close() { client.close() }
}

/// Reads a status stream in the background, keeping each event with the wall-clock instant it arrived.
final class StreamRecorder: Sendable {
    struct Arrival: Sendable {
        var event: StatusEvent
        /// Wall clock (the server's clock too: same machine), for push latency.
        var at: UnixTime

        var kind: StatusEvent.Kind { event.kind }
        var customer: CustomerStatus { event.customer ?? CustomerStatus() }
        var version: UInt64 { customer.version }
        var appUserID: String { customer.appUserID }
        var state: SubscriptionStatus.State { customer.status?.state ?? .unspecified }
        var entitlementIDs: [String] { (customer.status?.entitlements ?? []).map(\.id) }
    }

    private struct State {
        var arrivals: [Arrival] = []
        var taken = 0
        var end: Result<Void, RPCError>?
    }

    private let state = Mutex(State())
    private let reader = Mutex<Task<Void, Never>?>(nil)

    init(_ stream: AsyncThrowingStream<StatusEvent, any Error>) {
        // Holds the recorder until the stream ends (``cancel()`` ends it).
        let task = Task {
            do {
                for try await event in stream {
                    let arrival = Arrival(event: event, at: SystemClock().now())
                    self.state.withLock { $0.arrivals.append(arrival) }
                }
                self.state.withLock { $0.end = .success(()) }
            } catch {
                self.state.withLock { $0.end = .failure(RPCError(from: error)) }
            }
        }
        reader.withLock { $0 = task }
    }

    /// The next event not yet taken; fails after `seconds`, or when the stream ended first.
    func next(within seconds: Double = 60) async throws -> Arrival {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while true {
            let (arrival, end) = state.withLock { state -> (Arrival?, Result<Void, RPCError>?) in
                guard state.taken < state.arrivals.count else { return (nil, state.end) }
                state.taken += 1
                return (state.arrivals[state.taken - 1], nil)
            }
            if let arrival { return arrival }
            if let end {
                throw StreamEnded(result: end)
            }
            if ContinuousClock.now >= deadline { throw StreamTimeout(seconds: seconds) }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    /// Events that arrived (and were not taken) after waiting `milliseconds`.
    func untaken(after milliseconds: Int) async throws -> [Arrival] {
        try await Task.sleep(for: .milliseconds(milliseconds))
        return state.withLock { Array($0.arrivals[$0.taken...]) }
    }

    /// How the stream ended, waiting up to `seconds`; nil when it is still open.
    func end(within seconds: Double = 60) async throws -> Result<Void, RPCError>? {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if let end = state.withLock({ $0.end }) { return end }
            try await Task.sleep(for: .milliseconds(2))
        }
        return nil
    }

    /// The status code the stream failed with, waiting up to `seconds` (nil: still open or ended OK).
    func errorCode(within seconds: Double = 60) async throws -> RPCError.Code? {
        if case .failure(let error)? = try await end(within: seconds) { return error.code }
        return nil
    }

    /// Cancels the call (the server sees the stream reset).
    func cancel() {
        reader.withLock { $0 }?.cancel()
    }
}

struct StreamTimeout: Error, CustomStringConvertible {
    var seconds: Double
    var description: String { "no status event within \(seconds) s" }
}

struct StreamEnded: Error, CustomStringConvertible {
    var result: Result<Void, RPCError>
    var description: String {
        switch result {
        case .success: "the stream ended (OK) before the expected event"
        case .failure(let error): "the stream failed before the expected event: \(error)"
        }
    }
}

/// The code of the RPCError `body` throws; nil (and an issue) when it succeeds or throws something else.
func rpcErrorCode(
    _ body: () async throws -> some Any, sourceLocation: SourceLocation = #_sourceLocation
) async -> RPCError.Code? {
    do {
        _ = try await body()
        Issue.record("expected the call to fail", sourceLocation: sourceLocation)
        return nil
    } catch let error as RPCError {
        return error.code
    } catch {
        Issue.record("expected an RPCError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

extension ProtoTimestamp {
    /// nil for a timestamp outside what the type allows (the server never sends one).
    var unixTime: UnixTime? { unixMilliseconds.map(UnixTime.init(milliseconds:)) }
}

/// Runs `body` with a fresh ``Harness`` and closes it afterwards, whether `body` throws or not.
func withHarness(
    maxStreamsPerConnection: Int = 100, maxStreamsPerCustomer: Int = 16, replayLimit: Int = 1000,
    _ body: (Harness) async throws -> Void
) async throws {
    let harness = try Harness(
        maxStreamsPerConnection: maxStreamsPerConnection, maxStreamsPerCustomer: maxStreamsPerCustomer,
        replayLimit: replayLimit)
    do {
        try await body(harness)
    } catch {
        await harness.close()
        throw error
    }
    await harness.close()
}

/// A started fixture, stopped (with every recorder and client cleaned up) by ``close()``.
final class Harness: Sendable {
    let server: EntitlementTestServer
    private let recorders = Mutex<[StreamRecorder]>([])
    private let clients = Mutex<[Calls]>([])

    init(
        maxStreamsPerConnection: Int = 100, maxStreamsPerCustomer: Int = 16, replayLimit: Int = 1000
    ) throws {
        server = try EntitlementTestServer(
            maxStreamsPerConnection: maxStreamsPerConnection, maxStreamsPerCustomer: maxStreamsPerCustomer,
            replayLimit: replayLimit)
    }

    var a: EntitlementTestServer.TenantKeys { server.tenantA }
    var b: EntitlementTestServer.TenantKeys { server.tenantB }

    /// A client on a new connection.
    func calls(key: String?) throws -> Calls {
        let calls = try server.calls(key: key)
        clients.withLock { $0.append(calls) }
        return calls
    }

    func stream(_ calls: Calls, _ appUserID: String, afterVersion: UInt64 = 0) -> StreamRecorder {
        let recorder = calls.stream(appUserID, afterVersion: afterVersion)
        recorders.withLock { $0.append(recorder) }
        return recorder
    }

    func close() async {
        for recorder in recorders.withLock({ $0 }) { recorder.cancel() }
        // Let the resets reach the server so graceful shutdown does not wait for the streams.
        for recorder in recorders.withLock({ $0 }) { _ = try? await recorder.end(within: 2) }
        for client in clients.withLock({ $0 }) { client.close() }
        server.stop()
    }
}
