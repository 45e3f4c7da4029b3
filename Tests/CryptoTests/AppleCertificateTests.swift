import CivilCalendar
import Crypto
import TestSupport
import Testing

/// The real Apple chain from Tests/Fixtures/apple/certs: the App Store receipt-signing leaf, the WWDR G6
/// intermediate and Apple Root CA - G3.
@Suite struct AppleCertificateTests {
    static func load(_ name: String) throws -> Certificate {
        try Certificate(derEncoded: [UInt8](RepositoryFiles.apple("certs/" + name)))
    }

    static let signedAt: Int64 = 1_761_962_975  // 2025-11-01, inside every certificate's validity

    @Test func rootParses() throws {
        let root = try Self.load("AppleRootCA-G3.cer")
        #expect(root.subjectCommonName == "Apple Root CA - G3")
        #expect(root.isCertificateAuthority)
        #expect(root.notValidBefore == 1_398_881_946)  // 2014-04-30 18:19:06 UTC
        #expect(root.notValidAfter == 2_187_800_346)  // 2039-04-30 18:19:06 UTC
        #expect(root.p256PublicKey == nil)  // P-384
        #expect(try Certificate(pemEncoded: root.pemEncoded) == root)
    }

    @Test func markerOIDsSitWhereAppleSaysTheyDo() throws {
        let leaf = try Self.load("AppleReceiptSigning-2025.cer")
        let intermediate = try Self.load("AppleWWDRCA-G6.cer")
        #expect(leaf.hasExtension(oid: "1.2.840.113635.100.6.11.1"))
        #expect(!leaf.hasExtension(oid: "1.2.840.113635.100.6.2.1"))
        #expect(intermediate.hasExtension(oid: "1.2.840.113635.100.6.2.1"))
        #expect(!intermediate.hasExtension(oid: "1.2.840.113635.100.6.11.1"))
        #expect(!leaf.isCertificateAuthority)
        #expect(intermediate.isCertificateAuthority)
        #expect(leaf.notValidBefore == 1_758_311_091)  // 2025-09-19 19:44:51 UTC
        #expect(leaf.notValidAfter == 1_823_449_643)  // 2027-10-13 17:47:23 UTC
        let key = try #require(leaf.p256PublicKey)
        #expect(key.x963Representation.count == 65)
        #expect(try P256.PublicKey(x963Representation: key.x963Representation) == key)
    }

    @Test func realChainVerifiesAtSignedDateAndNotOutsideTheLeaf() throws {
        let root = try Self.load("AppleRootCA-G3.cer")
        let intermediate = try Self.load("AppleWWDRCA-G6.cer")
        let leaf = try Self.load("AppleReceiptSigning-2025.cer")
        func verify(at time: Int64) -> CryptoError? {
            thrownError {
                try CertificateChain.verify(leaf: leaf, intermediates: [intermediate], trustedRoots: [root], at: time)
            }
        }
        #expect(verify(at: Self.signedAt) == nil)
        let early = try #require(verify(at: leaf.notValidBefore - Seconds.perDay))
        #expect(early.code == .notYetValid)
        #expect(early.message.contains("Prod ECC Mac App Store and iTunes Store Receipt Signing"))
        let late = try #require(verify(at: leaf.notValidAfter + Seconds.perDay))
        #expect(late.code == .expired)
        #expect(late.message.contains("2027-10-13T17:47:23Z"))
        // A self-made root is not Apple's.
        #expect(errorCode {
            try CertificateChain.verify(
                leaf: leaf, intermediates: [intermediate], trustedRoots: [try TestChain().root], at: Self.signedAt)
        } == .chainInvalid)
    }
}
