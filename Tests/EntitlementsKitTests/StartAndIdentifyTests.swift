import EntitlementsKit
import EntitlementsProto
import Synchronization
import Testing

/// `start()` beside `identify`, and a server that no longer knows the customer.
@Suite(.timeLimit(.minutes(1))) struct StartAndIdentifyTests {
    /// ``ScriptedTransport`` whose SyncStatus answers only once the test releases it, and can answer NOT_FOUND once.
    final class GatedSyncTransport: EntitlementsTransport {
        let scripted = ScriptedTransport()
        private let state = Mutex<(waiting: Int, released: Bool, notFoundOnce: Bool, identifies: Int)>((0, true, false, 0))

        var waiting: Int { state.withLock { $0.waiting } }
        var identifies: Int { state.withLock { $0.identifies } }
        func hold() { state.withLock { $0.released = false } }
        func release() { state.withLock { $0.released = true } }
        func answerNotFoundOnce() { state.withLock { $0.notFoundOnce = true } }

        func syncStatus(appUserID: String) async throws -> CustomerStatus {
            state.withLock { $0.waiting += 1 }
            while !state.withLock({ $0.released }) { try await Task.sleep(for: .milliseconds(2)) }
            let notFound = state.withLock { state in
                defer { state.notFoundOnce = false }
                return state.notFoundOnce
            }
            if notFound { throw EntitlementsError(code: .notFound, message: "No customer has app_user_id 'u' yet.") }
            return try await scripted.syncStatus(appUserID: appUserID)
        }
        func identify(appUserID: String, anonymousID: String?) async throws -> IdentifyResponse {
            state.withLock { $0.identifies += 1 }
            return try await scripted.identify(appUserID: appUserID, anonymousID: anonymousID)
        }
        func streamStatus(appUserID: String, afterVersion: UInt64) -> AsyncThrowingStream<StatusEvent, any Error> {
            scripted.streamStatus(appUserID: appUserID, afterVersion: afterVersion)
        }
        func purchase(_ request: PurchaseRequest) async throws -> PurchaseResponse { try await scripted.purchase(request) }
        func restore(_ request: RestoreRequest) async throws -> RestoreResponse { try await scripted.restore(request) }
        func setAttributes(_ request: SetAttributesRequest) async throws -> SetAttributesResponse {
            try await scripted.setAttributes(request)
        }
        func getOfferEligibility(_ request: GetOfferEligibilityRequest) async throws -> GetOfferEligibilityResponse {
            try await scripted.getOfferEligibility(request)
        }
        func signOffer(_ request: SignOfferRequest) async throws -> SignOfferResponse { try await scripted.signOffer(request) }
    }

    /// What the SDK logged, by level.
    final class Logged: Sendable {
        private let lines = Mutex<[(EntitlementsLog.Level, String)]>([])
        var log: EntitlementsLog {
            EntitlementsLog(minimumLevel: .debug) { level, line in self.lines.withLock { $0.append((level, line)) } }
        }
        func at(_ level: EntitlementsLog.Level) -> [String] { lines.withLock { $0.filter { $0.0 == level }.map(\.1) } }
    }

    /// The sample's launch: `start()` asks the server for the anonymous user's status while the app signs its user in.
    /// The answer arriving for the previous user is no failure: no warning, and the signed-in user's status stands.
    @Test func anIdentifyDuringStartsSyncStatusIsNoFailure() async throws {
        let transport = GatedSyncTransport()
        transport.scripted.state.withLock { $0.status = ScriptedTransport.customer(version: 2, active: ["pro"]) }
        transport.hold()
        let logged = Logged()
        let entitlements = Entitlements(configuration: .init(transport: transport, log: logged.log))
        let starting = Task { await entitlements.start() }
        try await eventually { transport.waiting == 1 }
        try await entitlements.identify("bob")
        transport.release()
        await starting.value
        #expect(logged.at(.warning).isEmpty, "\(logged.at(.warning))")
        #expect(logged.at(.debug).contains { $0.contains("SyncStatus at start was for the previous user") })
        #expect(await entitlements.appUserID == "bob")
        #expect(await entitlements.current.status.entitlementIDs == ["pro"])
    }

    /// NOT_FOUND from SyncStatus (the server lost the customer: a database reset) makes the SDK identify again and
    /// take the new customer's status, although its version is lower than the one it held.
    @Test func aCustomerTheServerNoLongerHoldsIsIdentifiedAgain() async throws {
        let transport = GatedSyncTransport()
        transport.scripted.state.withLock { $0.status = ScriptedTransport.customer(version: 7, active: ["pro"]) }
        let entitlements = Entitlements(configuration: .init(transport: transport))
        try await entitlements.refresh()
        #expect(await entitlements.current.version == 7)
        let identifiesBefore = transport.identifies
        transport.scripted.state.withLock { $0.status = ScriptedTransport.customer(version: 1, active: []) }
        transport.answerNotFoundOnce()
        let after = try await entitlements.refresh()
        #expect(transport.identifies == identifiesBefore + 1)
        #expect(after.version == 1 && after.status.entitlementIDs.isEmpty)
    }
}
