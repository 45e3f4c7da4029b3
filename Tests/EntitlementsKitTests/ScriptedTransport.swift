import EntitlementsKit
import EntitlementsProto
import Foundation
import Synchronization
import TestSupport

/// A transport with scripted answers: each `streamStatus` call takes the next stream script (events, then an error
/// or a normal end; none left: a stream that stays open until cancelled), `syncStatus` and `identify` answer the
/// status set last, and `purchase` records what it was sent and answers (or fails) as told.
final class ScriptedTransport: EntitlementsTransport {
    struct Script {
        var events: [StatusEvent]
        var fails: Bool
    }

    struct State {
        var scripts: [Script]
        var afterVersions: [UInt64] = []
        var syncs = 0
        var status = ScriptedTransport.customer(version: 0, active: [])
        var purchases: [String] = []
        var purchaseFailure: EntitlementsError?
        var purchaseAnswer: CustomerStatus?
    }

    let state: Mutex<State>

    init(_ scripts: [Script] = []) {
        state = Mutex(State(scripts: scripts))
    }

    var afterVersions: [UInt64] { state.withLock { $0.afterVersions } }
    var syncs: Int { state.withLock { $0.syncs } }
    var purchases: [String] { state.withLock { $0.purchases } }

    static func customer(version: UInt64, active: [String], source: Store = .grant) -> CustomerStatus {
        var customer = CustomerStatus()
        customer.appUserID = "u"
        customer.version = version
        var status = SubscriptionStatus()
        status.state = active.isEmpty ? .inactive : .active
        status.entitlements = active.map { id in
            var entitlement = ActiveEntitlement()
            entitlement.id = id
            entitlement.source = source
            return entitlement
        }
        customer.status = status
        return customer
    }

    static func event(_ kind: StatusEvent.Kind, version: UInt64, active: [String], source: Store = .grant) -> StatusEvent {
        var event = StatusEvent()
        event.kind = kind
        event.customer = customer(version: version, active: active, source: source)
        return event
    }

    struct Dropped: Error {}

    func streamStatus(appUserID: String, afterVersion: UInt64) -> AsyncThrowingStream<StatusEvent, any Error> {
        let script = state.withLock { state -> Script? in
            state.afterVersions.append(afterVersion)
            return state.scripts.isEmpty ? nil : state.scripts.removeFirst()
        }
        return AsyncThrowingStream { continuation in
            guard let script else { return }
            for event in script.events { continuation.yield(event) }
            continuation.finish(throwing: script.fails ? EntitlementsError(code: .unavailable, message: "dropped") : nil)
        }
    }

    func identify(appUserID: String, anonymousID: String?) async throws -> IdentifyResponse {
        var response = IdentifyResponse()
        response.customer = state.withLock { $0.status }
        return response
    }

    func syncStatus(appUserID: String) async throws -> CustomerStatus {
        state.withLock {
            $0.syncs += 1
            return $0.status
        }
    }

    func purchase(_ request: PurchaseRequest) async throws -> PurchaseResponse {
        let (failure, answer) = state.withLock { state in
            if case .appStore(let purchase)? = request.purchase { state.purchases.append(purchase.signedTransaction) }
            return (state.purchaseFailure, state.purchaseAnswer)
        }
        if let failure { throw failure }
        var response = PurchaseResponse()
        response.customer = answer
        return response
    }

    func restore(_ request: RestoreRequest) async throws -> RestoreResponse { RestoreResponse() }
    func setAttributes(_ request: SetAttributesRequest) async throws -> SetAttributesResponse { SetAttributesResponse() }
    func getOfferEligibility(_ request: GetOfferEligibilityRequest) async throws -> GetOfferEligibilityResponse {
        GetOfferEligibilityResponse()
    }
    func signOffer(_ request: SignOfferRequest) async throws -> SignOfferResponse { SignOfferResponse() }
}

/// Records every wait the SDK asks for and returns at once. Its `now` is the real time, or (with
/// `secondsPerReading`) a time that moves that far at each reading, to make streams look long-lived.
final class RecordedSleeps: Sendable {
    private let waits = Mutex<[Duration]>([])
    private let readings = Mutex(0)
    private let secondsPerReading: Double?

    init(secondsPerReading: Double? = nil) {
        self.secondsPerReading = secondsPerReading
    }

    var recorded: [Duration] { waits.withLock { $0 } }

    var clock: EntitlementsClock {
        EntitlementsClock(
            now: {
                guard let step = self.secondsPerReading else { return Date() }
                let reading = self.readings.withLock { count in
                    count += 1
                    return count
                }
                return Date(timeIntervalSince1970: 1_800_000_000 + Double(reading) * step)
            },
            sleep: { duration in self.waits.withLock { $0.append(duration) } })
    }
}

extension ManualClock {
    /// The SDK's clock over the tests' one: `sleep` returns once the test has moved the time past the wait's end.
    var entitlementsClock: EntitlementsClock {
        EntitlementsClock(
            now: { self.date },
            sleep: { duration in
                let (seconds, attoseconds) = duration.components
                let end = self.milliseconds + seconds * 1000 + attoseconds / 1_000_000_000_000_000
                while self.milliseconds < end { try await Task.sleep(for: .milliseconds(2)) }
            })
    }

    var date: Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
}
