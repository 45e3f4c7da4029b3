import AppStore
import Crypto
import Testing

/// Certificate chain, Apple OIDs and validity at the signing date.
@Suite struct ChainRejectionTests {
    private func verify(_ token: String, roots: [Certificate]) throws -> AppStoreVerificationError? {
        let verifier = try Fixtures.verifier(roots: roots)
        return #expect(throws: AppStoreVerificationError.self) { try verifier.verifyTransaction(token) }
    }

    @Test func aWellFormedTestChainVerifiesWithItsRoot() throws {
        let chain = try Fixtures.Chain()
        _ = try Fixtures.verifier(roots: [chain.root]).verifyTransaction(chain.token(Fixtures.transaction()))
    }

    @Test func leafWithoutItsOID() throws {
        let chain = try Fixtures.Chain(leafOID: false)
        let error = try verify(chain.token(Fixtures.transaction()), roots: [chain.root])
        #expect(error?.code == .missingAppleOID)
        #expect(error?.message.contains("1.2.840.113635.100.6.11.1") == true)
        #expect(error?.message.contains("Test Leaf") == true)
    }

    @Test func intermediateWithoutItsOID() throws {
        let chain = try Fixtures.Chain(intermediateOID: false)
        let error = try verify(chain.token(Fixtures.transaction()), roots: [chain.root])
        #expect(error?.code == .missingAppleOID)
        #expect(error?.message.contains("1.2.840.113635.100.6.2.1") == true)
    }

    @Test func chainToAnUnconfiguredRoot() throws {
        let chain = try Fixtures.Chain()
        // The token even carries its own root third: never trusted, only configured roots are.
        let error = try verify(chain.token(Fixtures.transaction()), roots: [Fixtures.ca.root])
        #expect(error?.code == .chainNotTrusted)
        #expect(error?.message.contains("configured root") == true)
    }

    @Test func anotherRootAmongTheConfiguredOnesIsEnough() throws {
        let chain = try Fixtures.Chain()
        _ = try Fixtures.verifier(roots: [Fixtures.ca.root, chain.root]).verifyTransaction(chain.token(Fixtures.transaction()))
    }

    @Test func aLeafSignedByTheRightNameButTheWrongKeyIsNotTrusted() throws {
        let chain = try Fixtures.Chain()
        let impostorKey = try P256.PrivateKey()
        let leafKey = try P256.PrivateKey()
        let leaf = try CertificateIssuer.issue(
            commonName: "Impostor", subjectPublicKey: leafKey.publicKey, serialNumber: 9,
            notValidBefore: Fixtures.now - Fixtures.day, notValidAfter: Fixtures.now + Fixtures.day,
            isCertificateAuthority: false, extensions: [LocalSigningCA.appleMarker("1.2.840.113635.100.6.11.1")],
            issuer: chain.intermediate, issuerKey: impostorKey)
        let token = try Fixtures.token(Fixtures.transaction(), x5c: [leaf, chain.intermediate, chain.root], key: leafKey)
        #expect(try verify(token, roots: [chain.root])?.code == .chainNotTrusted)
    }

    @Test func signedDateBeforeTheLeafsValidity() throws {
        let chain = try Fixtures.Chain(validFrom: Fixtures.now - Fixtures.day, validUntil: Fixtures.now + Fixtures.day)
        let before = (Fixtures.now - 2 * Fixtures.day) * 1000
        let error = try verify(chain.token(Fixtures.transaction(signedDate: before)), roots: [chain.root])
        #expect(error?.code == .certificateExpired)
        #expect(error?.message.contains("Test Leaf") == true)
        #expect(error?.message.contains("\(before) ms") == true)
    }

    @Test func signedDateAfterTheLeafsValidity() throws {
        let chain = try Fixtures.Chain(validFrom: Fixtures.now - Fixtures.day, validUntil: Fixtures.now + Fixtures.day)
        let after = (Fixtures.now + 2 * Fixtures.day) * 1000
        let error = try verify(chain.token(Fixtures.transaction(signedDate: after)), roots: [chain.root])
        #expect(error?.code == .certificateExpired)
    }

    @Test func theValidityEdgesAreInclusive() throws {
        let from = Fixtures.now - Fixtures.day
        let until = Fixtures.now + Fixtures.day
        let chain = try Fixtures.Chain(validFrom: from, validUntil: until)
        let verifier = try Fixtures.verifier(roots: [chain.root])
        for seconds in [from, until] {
            _ = try verifier.verifyTransaction(chain.token(Fixtures.transaction(signedDate: seconds * 1000 + 999)))
        }
        for seconds in [from - 1, until + 1] {
            #expect(throws: AppStoreVerificationError.self) {
                try verifier.verifyTransaction(chain.token(Fixtures.transaction(signedDate: seconds * 1000)))
            }
        }
    }
}
