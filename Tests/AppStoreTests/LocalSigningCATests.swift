import AppStore
import CivilCalendar
import Crypto
import Encodings
import Foundation
import JOSE
import Testing

@Suite struct LocalSigningCATests {
    @Test func theChainIsAppleShaped() throws {
        let ca = Fixtures.ca
        #expect(ca.root.subjectCommonName == "entitlementd Local StoreKit Root")
        #expect(ca.root.isCertificateAuthority && ca.intermediate.isCertificateAuthority)
        #expect(!ca.leaf.isCertificateAuthority)
        #expect(ca.intermediate.hasExtension(oid: "1.2.840.113635.100.6.2.1"))
        #expect(ca.leaf.hasExtension(oid: "1.2.840.113635.100.6.11.1"))
        #expect(!ca.leaf.hasExtension(oid: "1.2.840.113635.100.6.2.1"))
        #expect(ca.leaf.p256PublicKey == ca.leafKey.publicKey)
        try CertificateChain.verify(leaf: ca.leaf, intermediates: [ca.intermediate], trustedRoots: [ca.root], at: Fixtures.now)
    }

    @Test func signsWithTheDocumentedHeader() throws {
        let token = try Fixtures.ca.sign(payload: Array("{}".utf8))
        let jws = try CompactJWS(token)
        let ca = Fixtures.ca
        let x5c = [ca.leaf, ca.intermediate, ca.root].map { Base64.encode($0.derEncoded, padded: true) }
        #expect(String(decoding: jws.headerJSON, as: UTF8.self) == #"{"alg":"ES256","x5c":["\#(x5c.joined(separator: #"",""#))"]}"#)
        #expect(ca.leafKey.publicKey.isValidSignature(rawRS: jws.signature, for: jws.signingInput))
    }

    @Test func savesAndLoadsAsPEMFiles() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("local-ca-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Fixtures.ca.save(to: directory)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        #expect(names == ["intermediate.pem", "leaf-key.pem", "leaf.pem", "root.pem"])
        let keyMode = try FileManager.default.attributesOfItem(atPath: "\(directory)/leaf-key.pem")[.posixPermissions] as? Int
        #expect(keyMode == 0o600)
        let loaded = try LocalSigningCA.load(from: directory)
        #expect(loaded.root == Fixtures.ca.root && loaded.intermediate == Fixtures.ca.intermediate && loaded.leaf == Fixtures.ca.leaf)
        // What the loaded CA signs verifies against the saved root.
        let root = try Certificate(pemEncoded: String(contentsOfFile: "\(directory)/root.pem", encoding: .utf8))
        let verifier = try Fixtures.verifier(roots: [root])
        _ = try verifier.verifyTransaction(loaded.sign(Fixtures.transaction()))
        // A key that does not belong to the leaf is refused.
        try P256.PrivateKey().pemRepresentation.write(toFile: "\(directory)/leaf-key.pem", atomically: true, encoding: .utf8)
        #expect(throws: LocalSigningCA.FileError.self) { try LocalSigningCA.load(from: directory) }
        #expect(throws: LocalSigningCA.FileError.self) { try LocalSigningCA.load(from: "\(directory)/missing") }
    }

    @Test func payloadBuildersProduceWhatTheVerifierReads() throws {
        let verifier = try Fixtures.verifier()
        let expires = LocalPayloads.nowMilliseconds() + Milliseconds.perHour
        let transaction = try verifier.verifyTransaction(Fixtures.ca.sign(LocalPayloads.transaction(
            bundleID: Fixtures.bundleID, productID: "lifetime", originalTransactionID: "7", transactionID: "8",
            type: .nonConsumable, expiresDate: expires, appAccountToken: "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0",
            ownership: .familyShared)))
        #expect(transaction.originalTransactionId == "7" && transaction.transactionId == "8")
        #expect(transaction.type?.known == .nonConsumable)
        #expect(transaction.inAppOwnershipType?.known == .familyShared)
        #expect(transaction.transactionReason?.known == .renewal)
        #expect(transaction.appAccountToken == "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0")
        #expect(transaction.expiresDate == expires)
        #expect(abs((transaction.signedDate ?? 0) - LocalPayloads.nowMilliseconds()) < Milliseconds.perMinute)
        let renewal = try verifier.verifyRenewalInfo(Fixtures.ca.sign(LocalPayloads.renewalInfo(
            originalTransactionID: "7", productID: "monthly", autoRenew: false, gracePeriodExpiresDate: expires,
            isInBillingRetryPeriod: true, expirationIntent: .billingError)))
        #expect(renewal.autoRenewStatus?.known == .off)
        #expect(renewal.gracePeriodExpiresDate == expires)
        #expect(renewal.expirationIntent?.known == .billingError)
        let signedTransaction = try Fixtures.ca.sign(Fixtures.transaction())
        let notification = try verifier.verifyNotification(Fixtures.ca.sign(LocalPayloads.notification(
            type: "DID_FAIL_TO_RENEW", subtype: "GRACE_PERIOD", bundleID: Fixtures.bundleID,
            signedTransactionInfo: signedTransaction, status: .billingGracePeriod, notificationUUID: "n-1")))
        #expect(notification.notificationType?.known == .didFailToRenew)
        #expect(notification.subtype?.known == .gracePeriod)
        #expect(notification.notificationUUID == "n-1")
        #expect(notification.data?.status?.known == .billingGracePeriod)
        // The nested transaction is verified separately.
        let nested = try verifier.verifyTransaction(notification.data?.signedTransactionInfo ?? "")
        #expect(nested.productId == "pro.monthly")
    }
}
