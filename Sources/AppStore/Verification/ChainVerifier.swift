import Crypto
import Encodings

/// The certificate half of Apple's rules: `x5c[0]` (leaf) and `x5c[1]` (intermediate) must chain to a configured root
/// at the effective date, the leaf must carry Apple's receipt-signing OID and the intermediate Apple's WWDR OID.
///
/// `x5c[2]` is never read, as in Apple's Python and Node libraries: the path is built from the leaf and intermediate
/// to the *configured* roots only, so whatever the token puts third (Apple's root, another root, garbage) neither
/// helps nor hurts. Java's library rejects a third certificate that is not a configured root; a token that only
/// passes here because of that difference still needs a leaf and intermediate that chain to a configured root.
struct ChainVerifier: Sendable {
    static let leafOID = "1.2.840.113635.100.6.11.1"
    static let intermediateOID = "1.2.840.113635.100.6.2.1"

    let trustedRoots: [Certificate]
    let cache: ChainCache

    /// The leaf's P-256 key once the chain checks out at `time` (Unix seconds, taken from `timeSource`, for messages).
    /// `x5c` holds exactly three entries.
    func leafKey(x5c: [String], at time: Int64, timeSource: String) throws(AppStoreVerificationError) -> P256.PublicKey {
        let key = ChainCache.Key(leaf: x5c[0], intermediate: x5c[1])
        if let cached = cache.leafKey(for: key, at: time) { return cached }

        let leaf = try Self.certificate(try Self.der(x5c[0], position: "x5c[0] (leaf)"), position: "x5c[0] (leaf)")
        let intermediate = try Self.certificate(
            try Self.der(x5c[1], position: "x5c[1] (intermediate)"), position: "x5c[1] (intermediate)")
        do {
            try CertificateChain.verify(leaf: leaf, intermediates: [intermediate], trustedRoots: trustedRoots, at: time)
        } catch {
            throw Self.describe(error, timeSource: timeSource)
        }
        guard leaf.hasExtension(oid: Self.leafOID) else {
            throw AppStoreVerificationError(
                .missingAppleOID,
                "the leaf certificate \"\(leaf.subjectCommonName)\" lacks Apple's App Store receipt-signing OID "
                    + "\(Self.leafOID): it is not an App Store signing certificate")
        }
        guard intermediate.hasExtension(oid: Self.intermediateOID) else {
            throw AppStoreVerificationError(
                .missingAppleOID,
                "the intermediate certificate \"\(intermediate.subjectCommonName)\" lacks Apple's WWDR intermediate OID "
                    + "\(Self.intermediateOID)")
        }
        guard let publicKey = leaf.p256PublicKey else {
            throw AppStoreVerificationError(
                .invalidCertificate, "the leaf certificate \"\(leaf.subjectCommonName)\" has no P-256 key, ES256 needs one")
        }
        // Valid at every time where leaf, intermediate and whichever configured root issued the intermediate are:
        // intersecting with every root valid now is never wider than that.
        let path = [leaf, intermediate] + trustedRoots.filter { $0.notValidBefore <= time && time <= $0.notValidAfter }
        cache.insert(
            ChainCache.Entry(
                leafKey: publicKey,
                validFrom: path.map(\.notValidBefore).max() ?? time,
                validUntil: path.map(\.notValidAfter).min() ?? time),
            for: key)
        return publicKey
    }

    private static func der(_ base64: String, position: String) throws(AppStoreVerificationError) -> [UInt8] {
        guard let der = Base64.decode(base64, padding: .required), !der.isEmpty else {
            throw AppStoreVerificationError(.invalidCertificate, "\(position) is not standard base64 (with padding)")
        }
        return der
    }

    private static func certificate(_ der: [UInt8], position: String) throws(AppStoreVerificationError) -> Certificate {
        do {
            return try Certificate(derEncoded: der)
        } catch {
            throw AppStoreVerificationError(.invalidCertificate, "\(position) is not a DER X.509 certificate: \(error.message)")
        }
    }

    private static func describe(_ error: CryptoError, timeSource: String) -> AppStoreVerificationError {
        switch error.code {
        case .expired, .notYetValid:
            AppStoreVerificationError(
                .certificateExpired,
                "a certificate is not valid at \(timeSource): \(error.message)")
        case .malformed, .unsupported:
            AppStoreVerificationError(.invalidCertificate, "certificate chain unreadable: \(error.message)")
        case .chainInvalid, .invalidSignature, .internalError:
            AppStoreVerificationError(
                .chainNotTrusted,
                "the leaf and intermediate certificates do not chain to a configured root: \(error.message)")
        }
    }
}
