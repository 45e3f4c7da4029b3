public import Crypto
public import Foundation
import JOSE

/// Verifies and decodes App Store signed data (transactions, renewal infos, notifications, app transactions) with the
/// rules of Apple's app-store-server-library `SignedDataVerifier`, in the same order:
///
/// 1. a compact JWS (``CompactJWS``);
/// 2. header `alg` is `ES256`: anything else (`none`, `HS256`, `ES384`, missing) is rejected before any key is used;
/// 3. Xcode-signed data (one certificate in `x5c`, `kid` `Apple_Xcode_Key`, or a payload environment `Xcode`) is
///    rejected as ``AppStoreVerificationError/Code/xcodeSigned`` with advice, instead of an opaque chain error;
/// 4. `x5c` holds exactly three certificates;
/// 5. leaf and intermediate chain to one of `trustedRoots` at the payload's `signedDate` (`receiptCreationDate` for
///    app transactions; the current time when the payload has neither); `x5c[2]` is ignored (see ``ChainVerifier``);
///    leaf OID 1.2.840.113635.100.6.11.1, intermediate OID 1.2.840.113635.100.6.2.1;
/// 6. the ES256 signature (raw r||s) over `header.payload` verifies with the leaf's key;
/// 7. identity: bundle ID, `appAppleId` (production notifications and app transactions), environment.
///
/// No online (OCSP) checks, like Apple's libraries with `enableOnlineChecks: false`.
///
/// **Xcode and LocalTesting environments.** A verifier configured for `.xcode` or `.localTesting` does what Apple's
/// libraries do: such data is not signed by the App Store, so steps 2–6 are skipped and only the payload and the
/// identity checks (bundle, environment) apply. Nothing is proven about its origin; records accepted this way must
/// stay marked with that environment and never count for a tenant that did not opt in.
///
/// Chain results are cached by the exact leaf and intermediate bytes (``ChainCache``); signatures never are.
public struct SignedDataVerifier: Sendable {
    public let trustedRoots: [Certificate]
    public let bundleID: String
    public let appAppleID: Int64?
    public let environment: AppStoreEnvironment
    let chains: ChainVerifier
    let now: @Sendable () -> Int64

    /// - Parameters:
    ///   - trustedRoots: the roots chains must end at (Apple Root CA - G3 for real App Store data); at least one unless
    ///     `environment` is `.xcode` or `.localTesting`.
    ///   - appAppleID: the app's Apple ID; required for `.production`, where notifications and app transactions must
    ///     carry it.
    ///   - chainCacheCapacity: verified chains kept; 0 turns the cache off.
    ///   - now: Unix seconds, used only for payloads without a `signedDate`/`receiptCreationDate`.
    public init(
        trustedRoots: [Certificate], bundleID: String, appAppleID: Int64?, environment: AppStoreEnvironment,
        chainCacheCapacity: Int = 32, now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
    ) throws(AppStoreVerificationError) {
        if environment == .production, appAppleID == nil {
            throw AppStoreVerificationError(
                .invalidConfiguration, "a Production verifier needs the app's appAppleID (App Store Connect → App Information → Apple ID)")
        }
        if environment.isSignedByAppStore, trustedRoots.isEmpty {
            throw AppStoreVerificationError(
                .invalidConfiguration, "a \(environment.rawValue) verifier needs at least one trusted root certificate")
        }
        self.trustedRoots = trustedRoots
        self.bundleID = bundleID
        self.appAppleID = appAppleID
        self.environment = environment
        self.chains = ChainVerifier(trustedRoots: trustedRoots, cache: ChainCache(capacity: chainCacheCapacity))
        self.now = now
    }

    /// Steps 1–6: the decoded payload once its signature and chain check out (identity is the caller's step 7).
    func decodeVerified<Payload: SignedPayload>(_ token: String, as _: Payload.Type) throws(AppStoreVerificationError)
        -> Payload
    {
        let jws = try CompactJWS(appStoreToken: token)
        // The algorithm is judged before the payload is read, as Apple's libraries do.
        try checkAlgorithm(jws.header)
        return try verified(jws, Payload(jsonPayload: jws.payload))
    }

    /// ``decodeVerified(_:as:)`` of data already split and decoded.
    func decodeVerified<Payload: SignedPayload>(_ data: UnverifiedSignedData<Payload>) throws(AppStoreVerificationError)
        -> Payload
    {
        try checkAlgorithm(data.jws.header)
        return try verified(data.jws, data.payload)
    }

    private func checkAlgorithm(_ header: CompactJWS.Header) throws(AppStoreVerificationError) {
        guard environment.isSignedByAppStore, header.alg != "ES256" else { return }
        throw AppStoreVerificationError(
            .unsupportedAlgorithm,
            "header alg is \(header.alg.map { "\"\($0)\"" } ?? "missing"); App Store data is signed with ES256 only")
    }

    /// Steps 3–6 for a token whose algorithm checked out: `payload` once the chain and the signature do.
    private func verified<Payload: SignedPayload>(_ jws: CompactJWS, _ payload: Payload) throws(AppStoreVerificationError)
        -> Payload
    {
        guard environment.isSignedByAppStore else { return payload }
        if let evidence = Self.xcodeEvidence(jws.header, payload) {
            throw AppStoreVerificationError(.xcodeSigned, "\(AppStoreVerificationError.xcodeAdvice) (\(evidence))")
        }
        guard let x5c = jws.header.x5c else {
            throw AppStoreVerificationError(.invalidChainLength, "invalid chain length: the header has no x5c certificate chain")
        }
        guard x5c.count == 3 else {
            throw AppStoreVerificationError(
                .invalidChainLength,
                "invalid chain length: x5c holds \(x5c.count) certificates; App Store data carries exactly 3 (leaf, intermediate, root)")
        }
        let (time, timeSource) = effectiveTime(of: payload)
        let key = try chains.leafKey(x5c: x5c, at: time, timeSource: timeSource)
        guard jws.signature.count == 64 else {
            throw AppStoreVerificationError(
                .invalidSignature, "the signature is \(jws.signature.count) bytes; an ES256 JWS signature is 64 (raw r||s)")
        }
        guard key.isValidSignature(rawRS: jws.signature, for: jws.signingInput) else {
            throw AppStoreVerificationError(
                .invalidSignature, "the ES256 signature does not match the header and payload with the leaf certificate's key")
        }
        return payload
    }

    /// Unix seconds (floored, as Apple's `int(ms) // 1000`) and where they came from.
    private func effectiveTime(of payload: some SignedPayload) -> (Int64, String) {
        guard let milliseconds = payload.effectiveDate else {
            return (now(), "the current time (the payload has no signedDate)")
        }
        // Read before anything is verified, so any Int64: divided, never offset (`milliseconds - 999` overflows).
        let (quotient, remainder) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        return (remainder < 0 ? quotient - 1 : quotient, "the payload's signing date \(milliseconds) ms")
    }

    /// Why a token looks like Xcode's StoreKit testing signed it, or nil.
    static func xcodeEvidence(_ header: CompactJWS.Header, _ payload: some SignedPayload) -> String? {
        var evidence: [String] = []
        if header.x5c?.count == 1 { evidence.append("x5c holds a single certificate, not Apple's chain of 3") }
        if header.kid == "Apple_Xcode_Key" { evidence.append("header kid is Apple_Xcode_Key") }
        if payload.claimedEnvironment == AppStoreEnvironment.xcode.rawValue { evidence.append("environment is Xcode") }
        return evidence.isEmpty ? nil : evidence.joined(separator: "; ")
    }
}
