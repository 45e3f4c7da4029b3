import AppStore
import Crypto
import Testing

/// Apple's real chain from Tests/Fixtures/apple/certs. Nothing can be signed with Apple's key, so the chain half
/// of the verifier is checked directly: CertificateChain at the effective date, plus the OIDs the verifier requires.
@Suite struct AppleCertificateTests {
    let root: Certificate
    let intermediate: Certificate
    let leaf: Certificate

    init() throws {
        root = try Certificate(derEncoded: Array(Fixtures.appleFile("certs/AppleRootCA-G3.cer")))
        intermediate = try Certificate(derEncoded: Array(Fixtures.appleFile("certs/AppleWWDRCA-G6.cer")))
        leaf = try Certificate(derEncoded: Array(Fixtures.appleFile("certs/AppleReceiptSigning-2025.cer")))
    }

    @Test func theRealChainVerifiesAt1761962975() throws {
        try CertificateChain.verify(leaf: leaf, intermediates: [intermediate], trustedRoots: [root], at: 1_761_962_975)
        #expect(leaf.hasExtension(oid: "1.2.840.113635.100.6.11.1"))
        #expect(intermediate.hasExtension(oid: "1.2.840.113635.100.6.2.1"))
        #expect(leaf.p256PublicKey != nil)
        #expect(root.subjectCommonName == "Apple Root CA - G3")
    }

    @Test func theRealChainFailsOutsideTheLeafsValidity() {
        for time in [leaf.notValidBefore - 1, leaf.notValidAfter + 1] {
            let error = #expect(throws: CryptoError.self) {
                try CertificateChain.verify(leaf: leaf, intermediates: [intermediate], trustedRoots: [root], at: time)
            }
            #expect(error?.code == .expired || error?.code == .notYetValid)
        }
    }

    @Test func theRealChainIsNotTrustedWithoutAppleRoot() {
        let error = #expect(throws: CryptoError.self) {
            try CertificateChain.verify(
                leaf: leaf, intermediates: [intermediate], trustedRoots: [Fixtures.ca.root], at: 1_761_962_975)
        }
        #expect(error?.code == .chainInvalid)
    }

    @Test func aTokenCarryingTheRealChainGetsAsFarAsTheSignature() throws {
        // Apple's real certificates with a payload signed by some other key: chain, OIDs and date pass, the
        // signature is what fails. Proves the verifier's chain step accepts Apple's real chain.
        let verifier = try SignedDataVerifier(
            trustedRoots: [root], bundleID: Fixtures.bundleID, appAppleID: nil, environment: .sandbox)
        let token = try Fixtures.token(
            Fixtures.transaction(signedDate: 1_761_962_975_000), x5c: [leaf, intermediate, root], key: P256.PrivateKey())
        let error = #expect(throws: AppStoreVerificationError.self) { try verifier.verifyTransaction(token) }
        #expect(error?.code == .invalidSignature)
        let outside = try Fixtures.token(
            Fixtures.transaction(signedDate: (leaf.notValidAfter + 1) * 1000), x5c: [leaf, intermediate, root],
            key: P256.PrivateKey())
        let expired = #expect(throws: AppStoreVerificationError.self) { try verifier.verifyTransaction(outside) }
        #expect(expired?.code == .certificateExpired)
    }
}
