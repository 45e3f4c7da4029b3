import Crypto
import Testing

@Suite struct CertificateParsingTests {
    @Test func derAndPEMRoundTrip() throws {
        let chain = try TestChain()
        let fromDER = try Certificate(derEncoded: chain.leaf.derEncoded)
        #expect(fromDER == chain.leaf)
        #expect(fromDER.derEncoded == chain.leaf.derEncoded)
        let pem = chain.leaf.pemEncoded
        #expect(pem.hasPrefix("-----BEGIN CERTIFICATE-----\n"))
        let fromPEM = try Certificate(pemEncoded: pem)
        #expect(fromPEM.derEncoded == chain.leaf.derEncoded)
        #expect(fromPEM != chain.intermediate)
        #expect(Set([fromDER, fromPEM, chain.root]).count == 2)
    }

    @Test func allFromPEMKeepsOrderAndSkipsOtherBlocks() throws {
        let chain = try TestChain()
        let bundle = chain.leafKey.pemRepresentation + chain.leaf.pemEncoded + "comment\n" + chain.intermediate.pemEncoded
            + chain.root.pemEncoded
        #expect(try Certificate.allFromPEM(bundle) == [chain.leaf, chain.intermediate, chain.root])
        #expect(try Certificate(pemEncoded: bundle) == chain.leaf)
    }

    @Test func malformedInputsAreRejected() throws {
        let der = try TestChain().root.derEncoded
        #expect(errorCode { _ = try Certificate(derEncoded: []) } == .malformed)
        #expect(errorCode { _ = try Certificate(derEncoded: [0x30, 0x03, 0x02, 0x01, 0x01]) } == .malformed)
        #expect(errorCode { _ = try Certificate(derEncoded: Array(der.dropLast())) } == .malformed)
        #expect(errorCode { _ = try Certificate(derEncoded: der + [0x00]) } == .malformed)
        #expect(errorCode { _ = try Certificate(pemEncoded: "") } == .malformed)
        #expect(errorCode { _ = try Certificate(pemEncoded: "hello") } == .malformed)
        #expect(
            errorCode { _ = try Certificate(pemEncoded: "-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n") }
                == .malformed)
        #expect(errorCode { _ = try Certificate.allFromPEM("") } == .malformed)
        let pem = try TestChain().root.pemEncoded
        let damaged = pem + "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"
        #expect(errorCode { _ = try Certificate.allFromPEM(damaged) } == .malformed)
    }

    @Test func issuedFieldsReadBack() throws {
        let chain = try TestChain()
        #expect(chain.leaf.notValidBefore == TestChain.t0 + 10 * TestChain.day)
        #expect(chain.leaf.notValidAfter == TestChain.t0 + 400 * TestChain.day)
        #expect(chain.root.notValidBefore == TestChain.t0)
        #expect(chain.leaf.subjectCommonName == "Test Signing Leaf")
        #expect(chain.root.subjectCommonName == "Test Root CA")
        #expect(chain.root.isCertificateAuthority)
        #expect(chain.intermediate.isCertificateAuthority)
        #expect(!chain.leaf.isCertificateAuthority)
        #expect(chain.leaf.p256PublicKey == chain.leafKey.publicKey)
        #expect(chain.root.p256PublicKey == chain.rootKey.publicKey)
    }

    @Test func dateBeyond2049UsesGeneralizedTime() throws {
        let key = try P256.PrivateKey()
        let late: Int64 = 4_102_444_800  // 2100-01-01
        let certificate = try CertificateIssuer.issue(
            commonName: "Long", subjectPublicKey: key.publicKey, serialNumber: .max, notValidBefore: 0,
            notValidAfter: late, isCertificateAuthority: true, issuer: nil, issuerKey: key)
        #expect(certificate.notValidBefore == 0)
        #expect(certificate.notValidAfter == late)
    }

    @Test func customExtensionPresence() throws {
        let chain = try TestChain()
        #expect(chain.leaf.hasExtension(oid: appleLeafMarker))
        #expect(!chain.leaf.hasExtension(oid: appleIntermediateMarker))
        #expect(chain.intermediate.hasExtension(oid: appleIntermediateMarker))
        #expect(!chain.intermediate.hasExtension(oid: appleLeafMarker))
        #expect(!chain.root.hasExtension(oid: appleLeafMarker))
        #expect(chain.root.hasExtension(oid: "2.5.29.19"))  // basicConstraints, added by the issuer
        #expect(!chain.leaf.hasExtension(oid: "not an oid"))
    }

    @Test func issuerRejectsBadArguments() throws {
        let key = try P256.PrivateKey()
        func issue(
            before: Int64 = 0, after: Int64 = 10, ca: Bool = true, pathLength: Int? = nil,
            extensions: [CertificateIssuer.Extension] = []
        ) -> CryptoError.Code? {
            errorCode {
                _ = try CertificateIssuer.issue(
                    commonName: "x", subjectPublicKey: key.publicKey, serialNumber: 1, notValidBefore: before,
                    notValidAfter: after, isCertificateAuthority: ca, pathLength: pathLength, extensions: extensions,
                    issuer: nil, issuerKey: key)
            }
        }
        #expect(issue() == nil)
        #expect(issue(before: 20) == .malformed)
        #expect(issue(ca: false, pathLength: 0) == .malformed)
        #expect(issue(pathLength: -1) == .malformed)
        #expect(issue(extensions: [.init(oid: "bogus", critical: false, derValue: asn1Null)]) == .malformed)
        #expect(issue(extensions: [.init(oid: "2.5.29.19", critical: false, derValue: asn1Null)]) == .malformed)
        let marker = CertificateIssuer.Extension(oid: appleLeafMarker, critical: false, derValue: asn1Null)
        #expect(issue(extensions: [marker, marker]) == .malformed)
    }
}
