import AppStoreServerAPI
import EntitlementDomain
import EntitlementsProto
import ProtobufWire
import RPCCore
import Synchronization

/// GetOfferEligibility and SignOffer: the domain decides (``Offers``); each tenant's In-App Purchase key signs.
extension EntitlementService {
    func getOfferEligibility(_ request: GetOfferEligibilityRequest, _ context: ServerContext) async throws
        -> GetOfferEligibilityResponse
    {
        try await log.callAs(context, requires: .publicKey, scope: .read, in: tenants) { caller, fields in
            let tenant = caller.tenant
            try await userTokens.check(caller, context, appUserID: request.appUserID, &fields)
            let eligibility = try engine.offers.eligibility(
                tenant: tenant, appUserID: request.appUserID, productIDs: request.productIDs)
            fields.appUserID = eligibility.appUserID
            return GetOfferEligibilityResponse(eligibility)
        }
    }

    func signOffer(_ request: SignOfferRequest, _ context: ServerContext) async throws -> SignOfferResponse {
        try await log.callAs(context, requires: .publicKey, scope: .write, in: tenants) { caller, fields in
            let tenant = caller.tenant
            try await userTokens.check(caller, context, appUserID: request.appUserID, &fields)
            let signer = try offerSigners.signer(for: tenant)
            func given(_ text: String) -> String? { text.isEmpty ? nil : text }
            let wanted = OfferSignatureRequest(
                productID: request.productID, offerID: given(request.offerID), transactionID: given(request.transactionID),
                appTransactionID: given(request.appTransactionID), nonce: OfferSigner.nonce())
            var response = try await engine.offers.sign(tenant: tenant, appUserID: request.appUserID, request: wanted) {
                input throws(DomainError) in try Self.signatures(of: input, by: signer)
            }
            response.appUserID = request.appUserID
            fields.appUserID = request.appUserID
            return response
        }
    }

    /// Every format StoreKit takes for `input`: a promotional offer's StoreKit 1 signature and JWS, or an
    /// introductory offer eligibility JWS.
    private static func signatures(of input: OfferSignatureInput, by signer: OfferSigner) throws(DomainError)
        -> SignOfferResponse
    {
        var response = SignOfferResponse()
        response.productID = input.productID
        response.nonce = input.nonce
        response.appAccountToken = input.appAccountToken
        response.transactionID = input.transactionID ?? ""
        do throws(AppStoreServerAPIError) {
            if let offerID = input.offerID {
                let storeKit1 = try signer.promotionalOffer(
                    productID: input.productID, offerID: offerID, appAccountToken: input.appAccountToken, nonce: input.nonce,
                    timestamp: input.signedAt.milliseconds)
                response.offerID = offerID
                response.keyID = storeKit1.keyID
                response.timestamp = storeKit1.timestamp
                response.signature = storeKit1.signature
                response.compactJWS = try signer.promotionalOfferJWS(
                    productID: input.productID, offerID: offerID, transactionID: input.transactionID, nonce: input.nonce,
                    issuedAt: input.signedAt.seconds)
            } else {
                // Signed only to withhold the offer (OfferRules.introductorySignatureRefusal).
                let allowed = false
                response.introductoryOfferAllowed = allowed
                response.compactJWS = try signer.introductoryOfferEligibilityJWS(
                    productID: input.productID, allowed: allowed, transactionID: input.transactionID ?? "",
                    nonce: input.nonce, issuedAt: input.signedAt.seconds)
            }
        } catch {
            throw .credentialsUnusable("The tenant's In-App Purchase key cannot sign: \(error.message)")
        }
        return response
    }
}

/// Each tenant's offer signer, its In-App Purchase key read on first use and kept until the tenants file reloads. A
/// signer is kept with the settings it was made from: a call that began before a reload (its tenant the old one)
/// never leaves a signer of the old key for the new generation.
final class OfferSigners: Sendable {
    private struct Made: Sendable {
        let settings: AppStoreServerAPISettings
        let bundleID: String
        let signer: OfferSigner
    }

    private let signers = Mutex<(generation: UInt64, byTenant: [String: Made])>((0, [:]))
    private let tenants: TenantRegistry

    init(tenants: TenantRegistry) {
        self.tenants = tenants
    }

    func signer(for tenant: Tenant) throws(DomainError) -> OfferSigner {
        guard let settings = tenant.appStore, let api = settings.serverAPI else { throw Offers.notSigning() }
        let generation = tenants.snapshot.generation
        let cached = signers.withLock { $0.generation == generation ? $0.byTenant[tenant.id] : nil }
        if let cached, cached.settings == api, cached.bundleID == settings.bundleID { return cached.signer }
        let made = Made(
            settings: api, bundleID: settings.bundleID,
            signer: OfferSigner(credentials: try AppStoreServerAPIs.credentials(of: tenant, settings: settings, api: api)))
        signers.withLock { cache in
            if cache.generation != generation { cache = (generation, [:]) }
            cache.byTenant[tenant.id] = made
        }
        return made.signer
    }
}

extension GetOfferEligibilityResponse {
    init(_ eligibility: OfferEligibility) {
        self.init()
        appUserID = eligibility.appUserID
        introductoryOffers = eligibility.introductory.map { productID, decision in
            var answer = IntroductoryOfferEligibility()
            answer.productID = productID
            answer.eligible = decision.eligible
            answer.reason =
                switch decision.reason {
                case .neverSubscribed: .neverSubscribed
                case .noHistory: .noHistory
                case .subscribedBefore: .subscribedBefore
                }
            if let subscription = decision.subscription {
                answer.subscribedStore = EntitlementsProto.Store(subscription.store)
                answer.subscribedProductID = subscription.productID
            }
            return answer
        }
        promotionalOffers = eligibility.promotional.map { offer in
            var answer = PromotionalOfferEligibility()
            answer.offerID = offer.offerID
            answer.productID = offer.productID
            answer.eligible = offer.refusal == nil
            answer.refusedRule = offer.refusal?.rule.rawValue ?? ""
            answer.message = offer.refusal?.message ?? ""
            return answer
        }
    }
}

extension OfferSignature {
    init(_ record: OfferSignatureRecord) {
        self.init()
        offerID = record.offerID
        productID = record.productID
        nonce = record.nonce
        signedAt = ProtoTimestamp(record.signedAt)
        redeemedTransactionID = record.redeemedTransactionID
        redeemedAt = record.redeemedAt.map { ProtoTimestamp($0) }
    }
}
