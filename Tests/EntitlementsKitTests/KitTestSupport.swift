import EntitlementsKit
import EntitlementsKitGRPC
import EntitlementsProto
import Foundation
import Synchronization
import Testing
import TestSupport

/// The two transports the SDK ships, for tests that run over each.
enum TransportKind: String, CaseIterable, CustomTestStringConvertible {
    case grpc, grpcWeb

    var testDescription: String { rawValue }

    /// Unary deadlines as long as the waits below: the whole suite runs in parallel on two cores in CI.
    static let timeout = Duration.seconds(60)

    func make(_ server: EntitlementTestServer, publicKey: String? = nil, userTokens: UserTokenProvider? = nil) throws
        -> any EntitlementsTransport
    {
        let key = publicKey ?? server.tenantA.publicKey
        switch self {
        case .grpc:
            return try GRPCTransport(
                configuration: server.clientConfiguration, publicKey: key, timeout: Self.timeout, userTokens: userTokens)
        case .grpcWeb:
            return GRPCWebTransport(
                baseURL: URL(string: "http://127.0.0.1:\(server.port)")!, publicKey: key, timeout: Self.timeout,
                userTokens: userTokens)
        }
    }
}

/// Every update an SDK publishes, collected by a task of its own, so tests wait for one with a deadline instead of
/// hanging on a stream that never delivers.
final class UpdateRecorder: Sendable {
    private let updates = Mutex<[StatusUpdate]>([])
    private let reader = Mutex<Task<Void, Never>?>(nil)

    init(_ entitlements: Entitlements) async {
        let stream = await entitlements.updates()
        let task = Task { [weak self] in
            for await update in stream { self?.updates.withLock { $0.append(update) } }
        }
        reader.withLock { $0 = task }
    }

    deinit { stop() }

    var all: [StatusUpdate] { updates.withLock { $0 } }

    func stop() { reader.withLock { $0?.cancel() } }

    /// The first update after the first `skipping` that satisfies `condition`, waiting up to `seconds`.
    @discardableResult
    func first(
        within seconds: Double = 60, sourceLocation: SourceLocation = #_sourceLocation,
        where condition: (StatusUpdate) -> Bool
    ) async throws -> StatusUpdate {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let match = all.first(where: condition) { return match }
            try await Task.sleep(for: .milliseconds(5))
        }
        Issue.record("No matching update within \(seconds) s; saw \(all.map(\.snapshot))", sourceLocation: sourceLocation)
        throw CancellationError()
    }
}

/// Polls `condition` for up to `seconds` (generous: the whole suite shares two cores in CI).
func eventually(
    within seconds: Double = 60, sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () async throws -> Bool
) async throws {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(5))
    }
    Issue.record("Condition not met within \(seconds) s", sourceLocation: sourceLocation)
    throw CancellationError()
}

/// A wait the test releases: the SDK's reconnect backoff held until the test has done what it needs while the
/// stream is down. Records each wait asked for.
final class GatedSleeps: Sendable {
    private let state = Mutex<(open: Bool, waits: [Duration])>((false, []))

    var waits: [Duration] { state.withLock { $0.waits } }
    func open() { state.withLock { $0.open = true } }
    func close() { state.withLock { $0.open = false } }

    func sleep(_ duration: Duration) async throws {
        state.withLock { $0.waits.append(duration) }
        while !state.withLock({ $0.open }) { try await Task.sleep(for: .milliseconds(5)) }
    }

    var clock: EntitlementsClock { EntitlementsClock(now: { Date() }, sleep: { try await self.sleep($0) }) }
}

/// A transport that records what the SDK asked of another.
final class RecordingTransport: EntitlementsTransport {
    let wrapped: any EntitlementsTransport
    private let afterVersionsSeen = Mutex<[UInt64]>([])
    var afterVersions: [UInt64] { afterVersionsSeen.withLock { $0 } }

    init(_ wrapped: any EntitlementsTransport) { self.wrapped = wrapped }

    func identify(appUserID: String, anonymousID: String?) async throws -> IdentifyResponse {
        try await wrapped.identify(appUserID: appUserID, anonymousID: anonymousID)
    }
    func syncStatus(appUserID: String) async throws -> CustomerStatus { try await wrapped.syncStatus(appUserID: appUserID) }
    func streamStatus(appUserID: String, afterVersion: UInt64) -> AsyncThrowingStream<StatusEvent, any Error> {
        afterVersionsSeen.withLock { $0.append(afterVersion) }
        return wrapped.streamStatus(appUserID: appUserID, afterVersion: afterVersion)
    }
    func purchase(_ request: PurchaseRequest) async throws -> PurchaseResponse { try await wrapped.purchase(request) }
    func restore(_ request: RestoreRequest) async throws -> RestoreResponse { try await wrapped.restore(request) }
    func setAttributes(_ request: SetAttributesRequest) async throws -> SetAttributesResponse {
        try await wrapped.setAttributes(request)
    }
    func getOfferEligibility(_ request: GetOfferEligibilityRequest) async throws -> GetOfferEligibilityResponse {
        try await wrapped.getOfferEligibility(request)
    }
    func signOffer(_ request: SignOfferRequest) async throws -> SignOfferResponse { try await wrapped.signOffer(request) }
    var userTokens: UserTokenProvider? { wrapped.userTokens }
}
