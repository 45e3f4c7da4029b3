import CivilCalendar
public import Crypto
import JOSE

/// A development signing CA shaped like Apple's App Store chain: a root, an intermediate carrying Apple's WWDR OID
/// 1.2.840.113635.100.6.2.1 and a leaf carrying the receipt-signing OID 1.2.840.113635.100.6.11.1, all P-256.
///
/// Data it signs passes ``SignedDataVerifier`` exactly like App Store data once a verifier trusts ``root``: the whole
/// verification path runs locally, without an Apple account. Only the leaf key is kept; the CA keys are discarded after
/// issuing, so a saved CA can sign but never issue.
public struct LocalSigningCA: Sendable {
    public static let rootCommonName = "entitlementd Local StoreKit Root"
    public static let intermediateCommonName = "entitlementd Local StoreKit Intermediate"
    public static let leafCommonName = "entitlementd Local StoreKit Signing"
    static let organization = "entitlementd local development (not Apple)"

    public let root: Certificate
    public let intermediate: Certificate
    public let leaf: Certificate
    public let leafKey: P256.PrivateKey

    public init(root: Certificate, intermediate: Certificate, leaf: Certificate, leafKey: P256.PrivateKey) {
        self.root = root
        self.intermediate = intermediate
        self.leaf = leaf
        self.leafKey = leafKey
    }

    /// A fresh chain. The leaf is valid from `validFrom` to `validUntil` (Unix seconds); the intermediate outlives it by
    /// five years and the root by ten, like Apple's.
    public static func create(validFrom: Int64, validUntil: Int64) throws(CryptoError) -> LocalSigningCA {
        let year = 365 * Seconds.perDay
        let rootKey = try P256.PrivateKey()
        let intermediateKey = try P256.PrivateKey()
        let leafKey = try P256.PrivateKey()
        let root = try CertificateIssuer.issue(
            commonName: rootCommonName, organization: organization, subjectPublicKey: rootKey.publicKey,
            serialNumber: serialNumber(), notValidBefore: validFrom, notValidAfter: validUntil + 10 * year,
            isCertificateAuthority: true, issuer: nil, issuerKey: rootKey)
        let intermediate = try CertificateIssuer.issue(
            commonName: intermediateCommonName, organization: organization, subjectPublicKey: intermediateKey.publicKey,
            serialNumber: serialNumber(), notValidBefore: validFrom, notValidAfter: validUntil + 5 * year,
            isCertificateAuthority: true, pathLength: 0,
            extensions: [appleMarker(ChainVerifier.intermediateOID)], issuer: root, issuerKey: rootKey)
        let leaf = try CertificateIssuer.issue(
            commonName: leafCommonName, organization: organization, subjectPublicKey: leafKey.publicKey,
            serialNumber: serialNumber(), notValidBefore: validFrom, notValidAfter: validUntil,
            isCertificateAuthority: false, extensions: [appleMarker(ChainVerifier.leafOID)],
            issuer: intermediate, issuerKey: intermediateKey)
        return LocalSigningCA(root: root, intermediate: intermediate, leaf: leaf, leafKey: leafKey)
    }

    /// Apple's marker extensions hold an ASN.1 NULL.
    public static func appleMarker(_ oid: String) -> CertificateIssuer.Extension {
        CertificateIssuer.Extension(oid: oid, critical: false, derValue: [0x05, 0x00])
    }

    /// `payload` (JSON bytes) as a compact JWS with header `{"alg":"ES256","x5c":[leaf, intermediate, root]}`.
    public func sign(payload: [UInt8]) throws(CryptoError) -> String {
        try JWSSigning.sign(
            headerJSON: JWSSigning.headerJSON(x5c: [leaf, intermediate, root]), payload: payload, key: leafKey)
    }

    private static func serialNumber() -> UInt64 {
        SecureRandom.bytes(8).reduce(0) { $0 << 8 | UInt64($1) } & 0x7FFF_FFFF_FFFF_FFFF | 1
    }
}
