import EntitlementsProto
import ProtobufWire

/// GetOfferEligibility and SignOffer messages, built exactly as `Resources/roundtrip.py` builds them.
extension Fixtures {
    static let offers: [Fixture] = [
        Fixture("GetOfferEligibilityRequest") { u in
            unk(GetOfferEligibilityRequest(appUserID: "user-1", productIDs: ["com.example.pro", "com.example.max"]), u)
        },
        Fixture("GetOfferEligibilityResponse") { u in
            var response = GetOfferEligibilityResponse()
            response.introductoryOffers = [introductoryOfferEligibility(u)]
            response.promotionalOffers = [promotionalOfferEligibility(u)]
            response.appUserID = "user-1"
            return unk(response, u)
        },
        Fixture("IntroductoryOfferEligibility") { introductoryOfferEligibility($0) },
        Fixture("PromotionalOfferEligibility") { promotionalOfferEligibility($0) },
        Fixture("SignOfferRequest") { u in
            unk(
                SignOfferRequest(
                    appUserID: "user-1", productID: "com.example.pro", offerID: "winback_50", transactionID: "2000000001",
                    appTransactionID: "705"), u)
        },
        Fixture("SignOfferResponse") { u in
            var response = SignOfferResponse()
            response.appUserID = "user-1"
            response.productID = "com.example.pro"
            response.offerID = "winback_50"
            response.keyID = "2X9R4HXF34"
            response.nonce = "0c3a1b9e-4b3f-4d8a-9e2f-6a1d2c3b4e5f"
            response.timestamp = 1_700_000_000_123
            response.signature = "MEUCIQ=="
            response.appAccountToken = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
            response.compactJWS = "eyJhbGciOiJFUzI1NiJ9.e30.sig"
            response.introductoryOfferAllowed = true
            response.transactionID = "2000000001"
            return unk(response, u)
        },
        Fixture("OfferSignature") { offerSignature($0, redeemed: true) },
        Fixture("Customer#offerSignatures") { u in
            var customer = customer(u)
            customer.offerSignatures = [offerSignature(u, redeemed: true), offerSignature(u, redeemed: false)]
            return customer
        },
        .empty(OfferSignature.self),
        .empty(GetOfferEligibilityRequest.self), .empty(GetOfferEligibilityResponse.self),
        .empty(IntroductoryOfferEligibility.self), .empty(PromotionalOfferEligibility.self),
        .empty(SignOfferRequest.self), .empty(SignOfferResponse.self),
    ]

    static func offerSignature(_ u: Bool, redeemed: Bool) -> OfferSignature {
        var signature = OfferSignature()
        signature.offerID = redeemed ? "winback_50" : ""
        signature.productID = "com.example.pro"
        signature.nonce = redeemed ? "0c3a1b9e-4b3f-4d8a-9e2f-6a1d2c3b4e5f" : "5d0e2c1a-7b6f-4e3d-8c2b-1a0f9e8d7c6b"
        signature.signedAt = ts(1_700_000_000, 123_000_000, u)
        if redeemed {
            signature.redeemedTransactionID = "2000000002"
            signature.redeemedAt = ts(1_700_000_600, 0, u)
        }
        return unk(signature, u)
    }

    static func introductoryOfferEligibility(_ u: Bool) -> IntroductoryOfferEligibility {
        var answer = IntroductoryOfferEligibility()
        answer.productID = "com.example.pro"
        answer.eligible = false
        answer.reason = .subscribedBefore
        answer.subscribedStore = .playStore
        answer.subscribedProductID = "pro_monthly"
        return unk(answer, u)
    }

    static func promotionalOfferEligibility(_ u: Bool) -> PromotionalOfferEligibility {
        var answer = PromotionalOfferEligibility()
        answer.offerID = "winback_50"
        answer.productID = "com.example.pro"
        answer.eligible = false
        answer.refusedRule = "lapsed_days"
        answer.message = "Offer \"winback_50\" is for customers lapsed at least 30 days."
        return unk(answer, u)
    }
}
