import Crypto
import Testing

@Suite struct CertificateChainTests {
    @Test func issuedChainVerifiesInsideValidity() throws {
        let chain = try TestChain()
        try CertificateChain.verify(
            leaf: chain.leaf, intermediates: [chain.intermediate], trustedRoots: [chain.root], at: TestChain.inside)
        // Another, unrelated root alongside the right one changes nothing.
        let other = try TestChain(rootName: "Other Root")
        try CertificateChain.verify(
            leaf: chain.leaf, intermediates: [chain.intermediate], trustedRoots: [other.root, chain.root],
            at: TestChain.inside)
    }

    @Test func outsideValidityNamesTheCertificate() throws {
        let chain = try TestChain()
        func verify(at time: Int64) -> CryptoError? {
            thrownError {
                try CertificateChain.verify(
                    leaf: chain.leaf, intermediates: [chain.intermediate], trustedRoots: [chain.root], at: time)
            }
        }
        let day = TestChain.day
        // After the leaf expires but while the CAs are valid: the leaf is named.
        let leafExpired = try #require(verify(at: TestChain.t0 + 500 * day))
        #expect(leafExpired.code == .expired)
        #expect(leafExpired.message.contains("Test Signing Leaf"))
        #expect(leafExpired.message.contains("until 2024-12-18T22:13:20Z"))  // t0 + 400 days
        // After the intermediate expires too: the intermediate is named.
        let intermediateExpired = try #require(verify(at: TestChain.t0 + 950 * day))
        #expect(intermediateExpired.code == .expired)
        #expect(intermediateExpired.message.contains("Test Intermediate CA"))
        // Before the leaf starts, all CAs already valid.
        let leafEarly = try #require(verify(at: TestChain.t0 + 5 * day))
        #expect(leafEarly.code == .notYetValid)
        #expect(leafEarly.message.contains("Test Signing Leaf"))
        // Before everything: some certificate not yet valid.
        #expect(verify(at: TestChain.t0 - day)?.code == .notYetValid)
        // OpenSSL's window is [notBefore, notAfter): the first second counts, the last one no longer does.
        #expect(verify(at: chain.leaf.notValidBefore) == nil)
        #expect(verify(at: chain.leaf.notValidBefore - 1)?.code == .notYetValid)
        #expect(verify(at: chain.leaf.notValidAfter - 1) == nil)
        #expect(verify(at: chain.leaf.notValidAfter)?.code == .expired)
    }

    @Test func differentRootFails() throws {
        let chain = try TestChain()
        let other = try TestChain(rootName: "Test Root CA")  // same name, different key
        let error = thrownError {
            try CertificateChain.verify(
                leaf: chain.leaf, intermediates: [chain.intermediate], trustedRoots: [other.root], at: TestChain.inside)
        }
        #expect(error?.code == .chainInvalid)
        #expect(errorCode {
            try CertificateChain.verify(
                leaf: chain.leaf, intermediates: [chain.intermediate], trustedRoots: [], at: TestChain.inside)
        } == .chainInvalid)
    }

    @Test func missingIntermediateFails() throws {
        let chain = try TestChain()
        let error = thrownError {
            try CertificateChain.verify(leaf: chain.leaf, intermediates: [], trustedRoots: [chain.root], at: TestChain.inside)
        }
        #expect(error?.code == .chainInvalid)
        #expect(error?.message.contains("unable to get local issuer certificate") == true)
        // The intermediate alone as a "root" is not enough either: partial chains are off.
        #expect(errorCode {
            try CertificateChain.verify(
                leaf: chain.leaf, intermediates: [], trustedRoots: [chain.intermediate], at: TestChain.inside)
        } == .chainInvalid)
    }

    @Test func leafSignedByAnotherKeyFails() throws {
        let chain = try TestChain()
        let impostor = try P256.PrivateKey()
        let forged = try CertificateIssuer.issue(
            commonName: "Forged Leaf", subjectPublicKey: chain.leafKey.publicKey, serialNumber: 9,
            notValidBefore: chain.leaf.notValidBefore, notValidAfter: chain.leaf.notValidAfter,
            isCertificateAuthority: false, extensions: [.init(oid: appleLeafMarker, critical: false, derValue: asn1Null)],
            issuer: chain.intermediate, issuerKey: impostor)
        let error = thrownError {
            try CertificateChain.verify(
                leaf: forged, intermediates: [chain.intermediate], trustedRoots: [chain.root], at: TestChain.inside)
        }
        #expect(error?.code == .chainInvalid)
        #expect(error?.message.contains("signature") == true)
    }

    @Test func nonCAIntermediateFails() throws {
        let chain = try TestChain()
        let notACA = try CertificateIssuer.issue(
            commonName: "Not A CA", subjectPublicKey: chain.intermediateKey.publicKey, serialNumber: 7,
            notValidBefore: chain.intermediate.notValidBefore, notValidAfter: chain.intermediate.notValidAfter,
            isCertificateAuthority: false, issuer: chain.root, issuerKey: chain.rootKey)
        let leaf = try CertificateIssuer.issue(
            commonName: "Leaf Under Non-CA", subjectPublicKey: chain.leafKey.publicKey, serialNumber: 8,
            notValidBefore: chain.leaf.notValidBefore, notValidAfter: chain.leaf.notValidAfter,
            isCertificateAuthority: false, issuer: notACA, issuerKey: chain.intermediateKey)
        let error = thrownError {
            try CertificateChain.verify(leaf: leaf, intermediates: [notACA], trustedRoots: [chain.root], at: TestChain.inside)
        }
        #expect(error?.code == .chainInvalid)
        #expect(error?.message.contains("Not A CA") == true)
    }

    @Test func pathLengthIsEnforced() throws {
        // The intermediate allows no CA below it; a second CA in between must be refused.
        let chain = try TestChain()
        let subKey = try P256.PrivateKey()
        let subCA = try CertificateIssuer.issue(
            commonName: "Sub CA", subjectPublicKey: subKey.publicKey, serialNumber: 10,
            notValidBefore: chain.leaf.notValidBefore, notValidAfter: chain.leaf.notValidAfter,
            isCertificateAuthority: true, issuer: chain.intermediate, issuerKey: chain.intermediateKey)
        let leaf = try CertificateIssuer.issue(
            commonName: "Deep Leaf", subjectPublicKey: chain.leafKey.publicKey, serialNumber: 11,
            notValidBefore: chain.leaf.notValidBefore, notValidAfter: chain.leaf.notValidAfter,
            isCertificateAuthority: false, issuer: subCA, issuerKey: subKey)
        let error = thrownError {
            try CertificateChain.verify(
                leaf: leaf, intermediates: [subCA, chain.intermediate], trustedRoots: [chain.root], at: TestChain.inside)
        }
        #expect(error?.code == .chainInvalid)
        #expect(error?.message.contains("path length") == true)
    }

    @Test func concurrentVerificationOfOneChain() async throws {
        let chain = try TestChain()
        let results = await withTaskGroup(of: (Bool, Bool).self) { group in
            for index in 0..<64 {
                group.addTask {
                    let good = errorCode {
                        try CertificateChain.verify(
                            leaf: chain.leaf, intermediates: [chain.intermediate], trustedRoots: [chain.root],
                            at: TestChain.inside + Int64(index))
                    } == nil
                    let expired = errorCode {
                        try CertificateChain.verify(
                            leaf: chain.leaf, intermediates: [chain.intermediate], trustedRoots: [chain.root],
                            at: TestChain.t0 + 500 * TestChain.day)
                    } == .expired
                    let message = Array("message \(index)".utf8)
                    let signed = (try? chain.leafKey.signature(for: message)).map {
                        chain.leaf.p256PublicKey?.isValidSignature(rawRS: $0, for: message) == true
                    }
                    return (good && expired, signed == true)
                }
            }
            var all: [(Bool, Bool)] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 64)
        #expect(results.allSatisfy { $0.0 && $0.1 })
    }
}
