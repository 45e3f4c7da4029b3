import Crypto
import Encodings
import JOSE

/// What StoreKit needs from the developer's server to let a customer redeem an offer, made with the tenant's
/// In-App Purchase key in each format StoreKit takes, as Apple's `app-store-server-library` makes them:
/// `PromotionalOfferSignatureCreator` (StoreKit 1 and `Product.PurchaseOption.promotionalOffer(offerID:keyID:nonce:
/// signature:timestamp:)`), `PromotionalOfferV2SignatureCreator` and `IntroductoryOfferEligibilitySignatureCreator`
/// (compact JWS, iOS 18.4 and later).
public struct OfferSigner: Sendable {
    public static let promotionalOfferAudience = "promotional-offer"
    public static let introductoryOfferEligibilityAudience = "introductory-offer-eligibility"
    /// What separates the fields of a StoreKit 1 signature's payload: U+2063 INVISIBLE SEPARATOR.
    static let separator = "\u{2063}"

    let credentials: AppStoreAPICredentials
    /// `{"alg":"ES256","kid":…,"typ":"JWT"}` in base64url: every JWS of the key has it.
    private let encodedHeader: String

    public init(credentials: AppStoreAPICredentials) {
        self.credentials = credentials
        let header: JSONValue = .object([
            ("alg", .string("ES256")), ("kid", .string(credentials.keyID)), ("typ", .string("JWT")),
        ])
        encodedHeader = JWSSigning.encodedHeader(Array(header.text.utf8))
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
        var claims = ClaimsWriter()
        claims.string("productId", productID)
        claims.string("offerIdentifier", offerID)
        if let transactionID { claims.string("transactionId", transactionID) }
        return try jws(claims, audience: Self.promotionalOfferAudience, nonce: nonce, issuedAt: issuedAt)
    }

    /// An introductory offer eligibility JWS (`aud` introductory-offer-eligibility): whether the customer may have the
    /// product's introductory offer, whatever StoreKit would decide, for one of its `transactionId`s.
    public func introductoryOfferEligibilityJWS(
        productID: String, allowed: Bool, transactionID: String, nonce: String, issuedAt: Int64
    ) throws(AppStoreServerAPIError) -> String {
        var claims = ClaimsWriter()
        claims.string("productId", productID)
        claims.bool("allowIntroductoryOffer", allowed)
        claims.string("transactionId", transactionID)
        return try jws(claims, audience: Self.introductoryOfferEligibilityAudience, nonce: nonce, issuedAt: issuedAt)
    }

    /// A fresh nonce: a random (version 4) UUID in lowercase.
    public static func nonce() -> String {
        var bytes = SecureRandom.bytes(16)
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = Hex.encode(bytes).utf8
        var text = [UInt8]()
        text.reserveCapacity(36)
        for (index, digit) in hex.enumerated() {
            if index == 8 || index == 12 || index == 16 || index == 20 { text.append(UInt8(ascii: "-")) }
            text.append(digit)
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The feature's claims, then `bid`, `iss`, `aud`, `iat`, `nonce`, under `{"alg":"ES256","kid":…,"typ":"JWT"}`, in
    /// the order Apple's library writes them.
    private func jws(_ claims: consuming ClaimsWriter, audience: String, nonce: String, issuedAt: Int64)
        throws(AppStoreServerAPIError) -> String
    {
        claims.string("bid", credentials.bundleID)
        claims.string("iss", credentials.issuerID)
        claims.string("aud", audience)
        claims.number("iat", issuedAt)
        claims.string("nonce", nonce.lowercased())
        do throws(CryptoError) {
            return try JWSSigning.sign(encodedHeader: encodedHeader, payload: claims.finished(), key: credentials.privateKey)
        } catch {
            throw AppStoreServerAPIError(.configuration, "cannot sign an offer JWS: \(error)")
        }
    }
}

/// A JWS payload written straight to bytes, its members in the order given: what `JSONValue` would write for the
/// same object, without building one for every signature.
struct ClaimsWriter {
    private var bytes: [UInt8] = [UInt8(ascii: "{")]

    init() {
        bytes.reserveCapacity(384)
    }

    mutating func string(_ key: String, _ value: String) {
        member(key)
        quoted(value)
    }

    mutating func bool(_ key: String, _ value: Bool) {
        member(key)
        bytes += (value ? "true" : "false").utf8
    }

    mutating func number(_ key: String, _ value: Int64) {
        member(key)
        bytes += String(value).utf8
    }

    consuming func finished() -> [UInt8] {
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    private mutating func member(_ key: String) {
        if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
        quoted(key)
        bytes.append(UInt8(ascii: ":"))
    }

    private mutating func quoted(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 { JSONStringEscape.write(byte) { bytes.append($0) } }
        bytes.append(UInt8(ascii: "\""))
    }
}
