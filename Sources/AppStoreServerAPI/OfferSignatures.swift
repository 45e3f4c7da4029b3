import Crypto
import Encodings
import JOSE

/// What StoreKit needs from the developer's server to let a customer redeem an offer, made with the tenant's
/// In-App Purchase key in each format StoreKit takes, as Apple's `app-store-server-library` makes them:
/// `PromotionalOfferSignatureCreator` (StoreKit 1 and `Product.PurchaseOption.promotionalOffer(offerID:keyID:nonce:
/// signature:timestamp:)`), `PromotionalOfferV2SignatureCreator` and `IntroductoryOfferEligibilitySignatureCreator`
/// (compact JWS, iOS 18.4 and later).
public struct OfferSignatures: Sendable {
    public static let promotionalOfferAudience = "promotional-offer"
    public static let introductoryOfferEligibilityAudience = "introductory-offer-eligibility"
    /// What separates the fields of a StoreKit 1 signature's payload: U+2063 INVISIBLE SEPARATOR.
    static let separator = "\u{2063}"

    let credentials: AppStoreAPICredentials

    public init(credentials: AppStoreAPICredentials) {
        self.credentials = credentials
    }

    /// The parts of a StoreKit 1 promotional offer signature. StoreKit accepts it for 24 hours after `timestamp`.
    public struct PromotionalOffer: Sendable, Hashable {
        public var keyID: String
        /// A fresh lowercase UUID: StoreKit redeems each signature once.
        public var nonce: String
        /// Milliseconds since 1970.
        public var timestamp: Int64
        /// Base64 of the DER ECDSA P-256 SHA-256 signature.
        public var signature: String
    }

    /// Signs `bundleId ⁣ keyId ⁣ productId ⁣ offerId ⁣ appAccountToken ⁣ nonce ⁣ timestamp` (token and nonce lowercased,
    /// the token empty when the purchase carries none).
    public func promotionalOffer(
        productID: String, offerID: String, appAccountToken: String, nonce: String, timestamp: Int64
    ) throws(AppStoreServerAPIError) -> PromotionalOffer {
        let payload = [
            credentials.bundleID, credentials.keyID, productID, offerID, appAccountToken.lowercased(), nonce.lowercased(),
            String(timestamp),
        ].joined(separator: Self.separator)
        let signature: [UInt8]
        do throws(CryptoError) {
            signature = try credentials.privateKey.derSignature(for: Array(payload.utf8))
        } catch {
            throw AppStoreServerAPIError(.configuration, "cannot sign a promotional offer: \(error)")
        }
        return PromotionalOffer(
            keyID: credentials.keyID, nonce: nonce.lowercased(), timestamp: timestamp,
            signature: Base64.encode(signature, padded: true))
    }

    /// A promotional offer JWS (`aud` promotional-offer): `productId`, `offerIdentifier` and, when given, one of the
    /// customer's `transactionId`s (or its app transaction ID). `issuedAt` in seconds since 1970.
    public func promotionalOfferJWS(
        productID: String, offerID: String, transactionID: String?, nonce: String, issuedAt: Int64
    ) throws(AppStoreServerAPIError) -> String {
        var claims: [(String, JSONValue)] = [("productId", .string(productID)), ("offerIdentifier", .string(offerID))]
        if let transactionID { claims.append(("transactionId", .string(transactionID))) }
        return try jws(claims, audience: Self.promotionalOfferAudience, nonce: nonce, issuedAt: issuedAt)
    }

    /// An introductory offer eligibility JWS (`aud` introductory-offer-eligibility): whether the customer may have the
    /// product's introductory offer, whatever StoreKit would decide, for one of its `transactionId`s.
    public func introductoryOfferEligibilityJWS(
        productID: String, allowed: Bool, transactionID: String, nonce: String, issuedAt: Int64
    ) throws(AppStoreServerAPIError) -> String {
        try jws(
            [("productId", .string(productID)), ("allowIntroductoryOffer", .bool(allowed)), ("transactionId", .string(transactionID))],
            audience: Self.introductoryOfferEligibilityAudience, nonce: nonce, issuedAt: issuedAt)
    }

    /// A fresh nonce: a random (version 4) UUID in lowercase.
    public static func nonce() -> String {
        var bytes = SecureRandom.bytes(16)
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = Array(Hex.encode(bytes))
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(hex[$0]) }.joined(separator: "-")
    }

    /// The feature's claims, then `bid`, `iss`, `aud`, `iat`, `nonce`, under `{"alg":"ES256","kid":…,"typ":"JWT"}`, in
    /// the order Apple's library writes them.
    private func jws(_ claims: [(String, JSONValue)], audience: String, nonce: String, issuedAt: Int64)
        throws(AppStoreServerAPIError) -> String
    {
        let header: JSONValue = .object([("alg", .string("ES256")), ("kid", .string(credentials.keyID)), ("typ", .string("JWT"))])
        let payload: JSONValue = .object(
            claims + [
                ("bid", .string(credentials.bundleID)), ("iss", .string(credentials.issuerID)), ("aud", .string(audience)),
                ("iat", .number(String(issuedAt))), ("nonce", .string(nonce.lowercased())),
            ])
        do throws(CryptoError) {
            return try JWSSigning.sign(
                headerJSON: Array(header.text.utf8), payload: Array(payload.text.utf8), key: credentials.privateKey)
        } catch {
            throw AppStoreServerAPIError(.configuration, "cannot sign an offer JWS: \(error)")
        }
    }
}
