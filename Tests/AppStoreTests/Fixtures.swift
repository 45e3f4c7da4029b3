import AppStore
import CivilCalendar
import Crypto
import Encodings
import Foundation
import JOSE
import TestSupport

/// Chains and tokens made at test time.
enum Fixtures {
    static let bundleID = "com.example.entitlementd"
    static let appAppleID: Int64 = 1_234_567_890
    static let now = Int64(Date().timeIntervalSince1970)
    static let day = Seconds.perDay

    /// One CA for the whole run (key generation is cheap, but one chain keeps cache behaviour predictable).
    static let ca: LocalSigningCA = {
        do {
            return try LocalSigningCA.create(validFrom: now - 30 * day, validUntil: now + 365 * day)
        } catch {
            fatalError("LocalSigningCA.create: \(error)")
        }
    }()

    static func verifier(
        environment: AppStoreEnvironment = .sandbox, roots: [Certificate]? = nil, appAppleID: Int64? = appAppleID,
        bundleID: String = bundleID
    ) throws -> SignedDataVerifier {
        try SignedDataVerifier(
            trustedRoots: roots ?? [ca.root], bundleID: bundleID, appAppleID: appAppleID, environment: environment)
    }

    static func transaction(
        environment: AppStoreEnvironment = .sandbox, bundleID: String = bundleID, signedDate: Int64? = nil
    ) -> LocalPayloads.Object {
        LocalPayloads.transaction(
            bundleID: bundleID, productID: "pro.monthly", originalTransactionID: "2000000000000001",
            environment: environment, expiresDate: (now + 30 * day) * 1000, signedDate: signedDate)
    }

    static func renewalInfo(environment: AppStoreEnvironment = .sandbox) -> LocalPayloads.Object {
        LocalPayloads.renewalInfo(
            originalTransactionID: "2000000000000001", productID: "pro.monthly", environment: environment,
            renewalDate: (now + 30 * day) * 1000)
    }

    static func notification(
        environment: AppStoreEnvironment = .sandbox, bundleID: String = bundleID, appAppleID: Int64? = appAppleID
    ) -> LocalPayloads.Object {
        LocalPayloads.notification(
            type: "DID_RENEW", bundleID: bundleID, appAppleID: appAppleID, environment: environment,
            signedTransactionInfo: "not.verified.here", status: .active)
    }

    static func appTransaction(
        environment: AppStoreEnvironment = .sandbox, appAppleID: Int64? = appAppleID
    ) -> LocalPayloads.Object {
        LocalPayloads.appTransaction(bundleID: bundleID, appAppleID: appAppleID, environment: environment)
    }

    /// `object` signed by `key` (default: the CA's leaf key) under a header with `alg` and `x5c` as given
    /// (default: the CA's full chain).
    static func token(
        _ object: LocalPayloads.Object, alg: String = "ES256", x5c: [Certificate]?? = .none, key: P256.PrivateKey? = nil
    ) throws -> String {
        let chain: [Certificate]? = x5c ?? [ca.leaf, ca.intermediate, ca.root]
        return try JWSSigning.sign(
            headerJSON: JWSSigning.headerJSON(alg: alg, x5c: chain), payload: LocalPayloads.json(object),
            key: key ?? ca.leafKey)
    }

    static func token(rawPayload: String, key: P256.PrivateKey? = nil) throws -> String {
        try JWSSigning.sign(
            headerJSON: JWSSigning.headerJSON(x5c: [ca.leaf, ca.intermediate, ca.root]), payload: Array(rawPayload.utf8),
            key: key ?? ca.leafKey)
    }

    /// A three-certificate chain minted piece by piece, for variants LocalSigningCA will not make.
    struct Chain {
        var root: Certificate
        var intermediate: Certificate
        var leaf: Certificate
        var leafKey: P256.PrivateKey

        var x5c: [Certificate] { [leaf, intermediate, root] }

        init(
            leafOID: Bool = true, intermediateOID: Bool = true, validFrom: Int64 = now - 30 * day,
            validUntil: Int64 = now + 365 * day, leafPathFromRootDirectly: Bool = false
        ) throws {
            let rootKey = try P256.PrivateKey()
            let intermediateKey = try P256.PrivateKey()
            leafKey = try P256.PrivateKey()
            root = try CertificateIssuer.issue(
                commonName: "Test Root", subjectPublicKey: rootKey.publicKey, serialNumber: 1,
                notValidBefore: now - 3650 * day, notValidAfter: now + 3650 * day, isCertificateAuthority: true,
                issuer: nil, issuerKey: rootKey)
            intermediate = try CertificateIssuer.issue(
                commonName: "Test Intermediate", subjectPublicKey: intermediateKey.publicKey, serialNumber: 2,
                notValidBefore: now - 3650 * day, notValidAfter: now + 3650 * day, isCertificateAuthority: true,
                pathLength: 0,
                extensions: intermediateOID ? [LocalSigningCA.appleMarker("1.2.840.113635.100.6.2.1")] : [],
                issuer: root, issuerKey: rootKey)
            leaf = try CertificateIssuer.issue(
                commonName: "Test Leaf", subjectPublicKey: leafKey.publicKey, serialNumber: 3, notValidBefore: validFrom,
                notValidAfter: validUntil, isCertificateAuthority: false,
                extensions: leafOID ? [LocalSigningCA.appleMarker("1.2.840.113635.100.6.11.1")] : [],
                issuer: intermediate, issuerKey: intermediateKey)
        }

        func token(_ object: LocalPayloads.Object) throws -> String {
            try JWSSigning.sign(
                headerJSON: JWSSigning.headerJSON(x5c: x5c), payload: LocalPayloads.json(object), key: leafKey)
        }
    }

    /// Replaces part `index` (0 header, 1 payload, 2 signature) of a compact JWS.
    static func replacingPart(_ index: Int, of token: String, with part: String) -> String {
        var parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        parts[index] = part
        return parts.joined(separator: ".")
    }

    static func base64URL(_ text: String) -> String { Base64.encode(Array(text.utf8), alphabet: .url, padded: false) }

    static func appleFile(_ relativePath: String) throws -> Data { try RepositoryFiles.apple(relativePath) }
}

extension AppStoreVerificationError.Code {
    /// For `#expect(throws:)`: matches any error with this code.
    func matches(_ error: any Error) -> Bool { (error as? AppStoreVerificationError)?.code == self }
}
