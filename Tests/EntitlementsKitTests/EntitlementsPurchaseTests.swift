import EntitlementsKit
import EntitlementsProto
import Synchronization
import Testing

/// What each purchase call sends: the SDK's user and exactly the purchase asked for.
@Suite struct EntitlementsPurchaseTests {
    final class CapturingTransport: EntitlementsTransport {
        let purchases = Mutex<[PurchaseRequest]>([])
        let restores = Mutex<[RestoreRequest]>([])

        func identify(appUserID: String, anonymousID: String?) async throws -> IdentifyResponse { IdentifyResponse() }
        func syncStatus(appUserID: String) async throws -> CustomerStatus { CustomerStatus() }
        func streamStatus(appUserID: String, afterVersion: UInt64) -> AsyncThrowingStream<StatusEvent, any Error> {
            AsyncThrowingStream { _ in }
        }
        func purchase(_ request: PurchaseRequest) async throws -> PurchaseResponse {
            purchases.withLock { $0.append(request) }
            var result = PurchaseResult()
            result.outcome = .new
            var response = PurchaseResponse()
            response.result = result
            response.customer = ScriptedTransport.customer(version: 9, active: ["pro"], source: .playStore)
            return response
        }
        func restore(_ request: RestoreRequest) async throws -> RestoreResponse {
            restores.withLock { $0.append(request) }
            var response = RestoreResponse()
            response.results = [PurchaseResult(), PurchaseResult()]
            response.transferredFromAppUserIDs = ["someone"]
            return response
        }
        func setAttributes(_ request: SetAttributesRequest) async throws -> SetAttributesResponse {
            SetAttributesResponse()
        }
        func getOfferEligibility(_ request: GetOfferEligibilityRequest) async throws -> GetOfferEligibilityResponse {
            GetOfferEligibilityResponse()
        }
        func signOffer(_ request: SignOfferRequest) async throws -> SignOfferResponse { SignOfferResponse() }
    }

    @Test func eachPurchaseCallSendsItsPurchaseForTheSDKsUser() async throws {
        let transport = CapturingTransport()
        let cache = MemoryStatusCache()
        try cache.saveIdentity(CachedIdentity(appUserID: "carol"))
        let entitlements = Entitlements(configuration: .init(transport: transport, cache: cache))

        let play = try await entitlements.purchase(playProductID: "com.example.pro", purchaseToken: "token-1")
        #expect(play.results.map(\.outcome) == [.new] && play.status.version == 9)
        #expect(play.status.status.entitlements.first?.source == .playStore)
        _ = try await entitlements.purchase(transactionID: "2000000000000001")
        _ = try await entitlements.purchase(signedTransaction: "header.payload.signature")
        _ = try await entitlements.redeemWebPurchase(code: "rc_abc")
        let sent = transport.purchases.withLock { $0 }
        #expect(sent.allSatisfy { $0.appUserID == "carol" })
        guard sent.count == 4,
            case .playStore(let playPurchase)? = sent[0].purchase,
            case .appStore(let byID)? = sent[1].purchase,
            case .appStore(let signed)? = sent[2].purchase,
            case .webRedemption(let redemption)? = sent[3].purchase
        else {
            Issue.record("unexpected requests: \(sent)")
            return
        }
        #expect(playPurchase.productID == "com.example.pro" && playPurchase.purchaseToken == "token-1")
        #expect(byID.transactionID == "2000000000000001" && byID.signedTransaction.isEmpty)
        #expect(signed.signedTransaction == "header.payload.signature" && signed.transactionID.isEmpty)
        #expect(redemption.code == "rc_abc")

        let restored = try await entitlements.restore(
            signedTransactions: ["a.b.c"], playPurchases: [("com.example.pro", "token-2")], appStoreHistoryIDs: ["2001"])
        let restore = try #require(transport.restores.withLock { $0.first })
        #expect(restore.appUserID == "carol" && restore.appStore.map(\.signedTransaction) == ["a.b.c"])
        #expect(restore.playStore.map(\.purchaseToken) == ["token-2"] && restore.appStoreTransactionIDs == ["2001"])
        #expect(restored.results.count == 2 && restored.transferredFrom == ["someone"])
    }
}
