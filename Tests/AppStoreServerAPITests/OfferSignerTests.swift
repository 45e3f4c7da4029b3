import AppStoreServerAPI
import Crypto
import Encodings
import Foundation
import TestSupport
import Testing

/// The offer signatures, checked by Apple's `app-store-server-library` (Python): the StoreKit 1 signature verified over
/// the library's own payload for the same inputs, each JWS verified and equal to the library's in header, claim names,
/// JSON types and values (but for the fresh `iat` and `nonce`).
@Suite struct OfferSignerTests {
    static let keyID = "2X9R4HXF34"
    static let issuerID = "57246542-96fe-1a63-e053-0824d011072a"
    static let bundleID = "com.example.app"

    struct Verdict: Decodable {
        var valid: Bool
        var error: String?
    }

    static func signer(_ key: P256.PrivateKey) throws -> OfferSigner {
        OfferSigner(
            credentials: try AppStoreAPICredentials(p8: key.pemRepresentation, keyID: keyID, issuerID: issuerID, bundleID: bundleID))
    }

    /// Apple's library's verdict (Tests/AppStoreServerAPITests/Resources/apple_offer_check.py) for the public half of
    /// `key` (`verifier`, when given, stands for another key).
    static func apple(_ mode: String, _ arguments: [String], key: P256.PrivateKey) async throws -> Verdict {
        let python = try PythonHelper(
            packageRoot: RepositoryFiles.root, workDirectoryPrefix: "offer-signatures",
            setupHint: "The offer check needs Python 3 with app-store-server-library (Tests/Interop/requirements.txt) in .venv or ENTITLEMENTD_PYTHON.")
        defer { python.removeFiles() }
        let pem = python.workDirectory.appendingPathComponent("key.p8")
        try key.pemRepresentation.write(to: pem, atomically: true, encoding: .utf8)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Resources/apple_offer_check.py").path
        return try JSONDecoder().decode(Verdict.self, from: try await python.run([script, mode, pem.path] + arguments))
    }

    @Test(arguments: [
        ("com.example.pro.monthly", "winback_50", "4ABF4F5A-9A0B-4F2B-8E2E-0B4C1C7C9D11"),
        ("com.example.pro.yearly", "retain.3months", ""),
        ("pro.ünïcode", "offer-1", "d8c1f0aa-6a3f-4d3b-9c1e-2f6f8f0e1b22"),
    ])
    func aStoreKit1SignatureIsWhatAppleSigns(product: String, offer: String, token: String) async throws {
        let key = try P256.PrivateKey()
        let nonce = OfferSigner.nonce()
        let signed = try Self.signer(key).promotionalOffer(
            productID: product, offerID: offer, appAccountToken: token, nonce: nonce, timestamp: 1_764_000_000_123)
        #expect(signed.keyID == Self.keyID && signed.nonce == nonce && signed.timestamp == 1_764_000_000_123)
        let arguments = [Self.keyID, Self.bundleID, product, offer, token, nonce, "1764000000123", signed.signature]
        let verdict = try await Self.apple("promotional", arguments, key: key)
        #expect(verdict.valid, "\(verdict.error ?? "")")
        // Another key's public half does not verify it, nor does another timestamp.
        #expect(try await !Self.apple("promotional", arguments, key: try P256.PrivateKey()).valid)
        var later = arguments
        later[6] = "1764000000124"
        #expect(try await !Self.apple("promotional", later, key: key).valid)
    }

    @Test(arguments: ["2000000123456789", nil])
    func aPromotionalOfferJWSIsWhatAppleMakes(transactionID: String?) async throws {
        let key = try P256.PrivateKey()
        let jws = try Self.signer(key).promotionalOfferJWS(
            productID: "com.example.pro.monthly", offerID: "winback_50", transactionID: transactionID,
            nonce: OfferSigner.nonce(), issuedAt: Int64(Date().timeIntervalSince1970))
        let verdict = try await Self.apple(
            "promotional-jws",
            [Self.keyID, Self.issuerID, Self.bundleID, "com.example.pro.monthly", "winback_50", transactionID ?? "-", jws],
            key: key)
        #expect(verdict.valid, "\(verdict.error ?? "")")
    }

    @Test(arguments: [true, false])
    func anIntroductoryOfferEligibilityJWSIsWhatAppleMakes(allowed: Bool) async throws {
        let key = try P256.PrivateKey()
        let jws = try Self.signer(key).introductoryOfferEligibilityJWS(
            productID: "com.example.pro.monthly", allowed: allowed, transactionID: "2000000123456789",
            nonce: OfferSigner.nonce(), issuedAt: Int64(Date().timeIntervalSince1970))
        let arguments = [Self.keyID, Self.issuerID, Self.bundleID, "com.example.pro.monthly", String(allowed), "2000000123456789", jws]
        let verdict = try await Self.apple("eligibility-jws", arguments, key: key)
        #expect(verdict.valid, "\(verdict.error ?? "")")
        // The library's answer for the other decision differs in a value: the comparison would see it.
        var other = arguments
        other[4] = String(!allowed)
        #expect(try await !Self.apple("eligibility-jws", other, key: key).valid)
    }

    @Test func noncesAreFreshLowercaseVersion4UUIDs() {
        let nonces = (0..<100).map { _ in OfferSigner.nonce() }
        #expect(Set(nonces).count == 100)
        for nonce in nonces {
            #expect(nonce == nonce.lowercased() && nonce.count == 36)
            #expect(UUID(uuidString: nonce) != nil)
            #expect(Array(nonce)[14] == "4" && "89ab".contains(Array(nonce)[19]))
        }
    }
}
