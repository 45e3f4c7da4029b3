public import EntitlementsProto

/// App Store offers, decided and signed by the server for the current user (README, "Offers"): which introductory
/// and promotional offers the user may have, and the signatures StoreKit needs to apply one.
extension Entitlements {
    /// A promotional offer signed for the current user: the StoreKit 1 parts (for
    /// `Product.PurchaseOption.promotionalOffer(offerID:keyID:nonce:signature:timestamp:)`) and the compact JWS
    /// (for `promotionalOffer(_:compactJWS:)`). The purchase must carry ``appAccountToken``.
    public struct SignedPromotionalOffer: Sendable, Hashable {
        public var offerID: String
        public var productID: String
        public var keyID: String
        /// A lowercase UUID.
        public var nonce: String
        /// Milliseconds since 1970; StoreKit takes the signature for 24 hours from it.
        public var timestamp: Int64
        /// Base64 of the DER signature.
        public var signature: String
        public var compactJWS: String
        /// The user's token, which the StoreKit 1 signature names.
        public var appAccountToken: String
    }

    /// An introductory offer eligibility JWS for the current user (for
    /// `Product.PurchaseOption.introductoryOfferEligibility(compactJWS:)`): `allowed` is what it tells StoreKit, false
    /// (the server signs one only to withhold the offer, from a subscription in another store).
    public struct SignedIntroductoryOfferEligibility: Sendable, Hashable {
        public var productID: String
        public var allowed: Bool
        public var compactJWS: String
        /// The App Store transaction the JWS names.
        public var transactionID: String
    }

    /// What the server decided for each product asked about.
    public struct OfferEligibility: Sendable, Hashable {
        /// Product → whether its introductory offer is for the user. A user the server knows nothing of is eligible
        /// here (`reason` `.noHistory`): StoreKit's own answer stands then.
        public var introductory: [String: IntroductoryOfferEligibility]
        /// The promotional offers set up on the products, each with whether the user may have it now.
        public var promotional: [PromotionalOfferEligibility]
    }

    /// Whether each of `productIDs` has an introductory offer for the user, and which promotional offers the user may
    /// have now; signs and records nothing.
    public func offerEligibility(productIDs: [String]) async throws -> OfferEligibility {
        try await identifyIfNeeded()
        let request = GetOfferEligibilityRequest(appUserID: identity.appUserID, productIDs: productIDs)
        let response = try await call { try await transport.getOfferEligibility(request) }
        return OfferEligibility(
            introductory: Dictionary(response.introductoryOffers.map { ($0.productID, $0) }, uniquingKeysWith: { first, _ in first }),
            promotional: response.promotionalOffers)
    }

    /// Has the server sign `offerID` on `productID` for the current user, once the offer's rules pass (a refusal is
    /// ``EntitlementsError`` `failedPrecondition`, its message naming the rule).
    public func signedPromotionalOffer(for offerID: String, productID: String) async throws -> SignedPromotionalOffer {
        try await identifyIfNeeded()
        let request = SignOfferRequest(appUserID: identity.appUserID, productID: productID, offerID: offerID)
        let response = try await call { try await transport.signOffer(request) }
        return SignedPromotionalOffer(
            offerID: response.offerID, productID: response.productID, keyID: response.keyID, nonce: response.nonce,
            timestamp: response.timestamp, signature: response.signature, compactJWS: response.compactJWS,
            appAccountToken: response.appAccountToken)
    }

    /// Has the server sign that the user may not have `productID`'s introductory offer when its purchases in
    /// another store say so (a trial on Android or the web); nil when StoreKit's own check of the Apple ID decides
    /// (the server's rule `storekit_decides`). `appTransactionID` (`AppTransaction`'s `appTransactionID`) names the
    /// app's own transaction for a user with no App Store purchase yet.
    public func signedIntroductoryOfferEligibility(productID: String, appTransactionID: String? = nil) async throws
        -> SignedIntroductoryOfferEligibility?
    {
        try await identifyIfNeeded()
        let request = SignOfferRequest(
            appUserID: identity.appUserID, productID: productID, appTransactionID: appTransactionID ?? "")
        let response: SignOfferResponse
        do {
            response = try await call { try await transport.signOffer(request) }
        } catch let error as EntitlementsError
            where error.code == .failedPrecondition && error.message.hasPrefix(Self.storeKitDecides)
        {
            return nil
        }
        return SignedIntroductoryOfferEligibility(
            productID: response.productID, allowed: response.introductoryOfferAllowed, compactJWS: response.compactJWS,
            transactionID: response.transactionID)
    }

    /// How the server's refusal begins when StoreKit's own eligibility stands.
    static let storeKitDecides = #"offer refused by rule "storekit_decides""#

    #if !canImport(StoreKit)
        /// ``signedPromotionalOffer(for:productID:)``: without StoreKit, the signed parts themselves.
        public func promotionalOffer(for offerID: String, productID: String) async throws -> SignedPromotionalOffer {
            try await signedPromotionalOffer(for: offerID, productID: productID)
        }

        /// ``signedIntroductoryOfferEligibility(productID:appTransactionID:)``: without StoreKit, the signed parts.
        public func introductoryOfferEligibility(productID: String, appTransactionID: String? = nil) async throws
            -> SignedIntroductoryOfferEligibility?
        {
            try await signedIntroductoryOfferEligibility(productID: productID, appTransactionID: appTransactionID)
        }
    #endif
}
