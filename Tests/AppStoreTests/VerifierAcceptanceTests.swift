import AppStore
import Crypto
import Testing

@Suite struct VerifierAcceptanceTests {
    @Test func validTransactionVerifies() throws {
        let transaction = try Fixtures.verifier().verifyTransaction(Fixtures.token(Fixtures.transaction()))
        #expect(transaction.bundleId == Fixtures.bundleID)
        #expect(transaction.originalTransactionId == "2000000000000001")
        #expect(transaction.type?.known == .autoRenewableSubscription)
        #expect(transaction.environment?.known == .sandbox)
        #expect(transaction.expiresDate == (Fixtures.now + 30 * Fixtures.day) * 1000)
    }

    @Test func validRenewalInfoVerifies() throws {
        let renewal = try Fixtures.verifier().verifyRenewalInfo(Fixtures.token(Fixtures.renewalInfo()))
        #expect(renewal.autoRenewStatus?.known == .on)
        #expect(renewal.productId == "pro.monthly")
    }

    @Test func validNotificationVerifiesWithoutTouchingItsNestedTokens() throws {
        // data.signedTransactionInfo is "not.verified.here": verifying the notification must not look at it.
        let notification = try Fixtures.verifier().verifyNotification(Fixtures.token(Fixtures.notification()))
        #expect(notification.notificationType?.known == .didRenew)
        #expect(notification.data?.signedTransactionInfo == "not.verified.here")
        #expect(notification.data?.status?.known == .active)
    }

    @Test func validAppTransactionVerifiesAtItsReceiptCreationDate() throws {
        let app = try Fixtures.verifier().verifyAppTransaction(Fixtures.token(Fixtures.appTransaction()))
        #expect(app.bundleId == Fixtures.bundleID)
        #expect(app.receiptType?.known == .sandbox)
        // The same CA, but a receiptCreationDate before the leaf existed: the date is what the chain is checked at.
        var early = Fixtures.appTransaction()
        early["receiptCreationDate"] = (Fixtures.now - 60 * Fixtures.day) * 1000
        let error = #expect(throws: AppStoreVerificationError.self) {
            try Fixtures.verifier().verifyAppTransaction(Fixtures.token(early))
        }
        #expect(error?.code == .certificateExpired)
    }

    @Test func productionNeedsAppAppleIDAndAcceptsMatchingData() throws {
        let error = #expect(throws: AppStoreVerificationError.self) {
            try Fixtures.verifier(environment: .production, appAppleID: nil)
        }
        #expect(error?.code == .invalidConfiguration)
        let verifier = try Fixtures.verifier(environment: .production)
        _ = try verifier.verifyTransaction(Fixtures.token(Fixtures.transaction(environment: .production)))
        _ = try verifier.verifyNotification(Fixtures.token(Fixtures.notification(environment: .production)))
        _ = try verifier.verifyAppTransaction(Fixtures.token(Fixtures.appTransaction(environment: .production)))
    }

    @Test func emptyRootsAreAConfigurationError() {
        let error = #expect(throws: AppStoreVerificationError.self) { try Fixtures.verifier(roots: []) }
        #expect(error?.code == .invalidConfiguration)
    }

    @Test func aFractionalSignedDateVerifies() throws {
        let verifier = try Fixtures.verifier()
        var payload = Fixtures.transaction()
        payload["signedDate"] = Double(Fixtures.now * 1000) + 0.75
        payload["purchaseDate"] = 1_697_679_936_049.7297
        let transaction = try verifier.verifyTransaction(Fixtures.token(payload))
        #expect(transaction.signedDate == Fixtures.now * 1000)
        #expect(transaction.purchaseDate == 1_697_679_936_049)
    }

    @Test func aMissingSignedDateIsCheckedAtTheCurrentTime() throws {
        var payload = Fixtures.transaction()
        payload["signedDate"] = nil
        let token = try Fixtures.token(payload)
        _ = try Fixtures.verifier().verifyTransaction(token)
        let later = try SignedDataVerifier(
            trustedRoots: [Fixtures.ca.root], bundleID: Fixtures.bundleID, appAppleID: nil, environment: .sandbox,
            now: { Fixtures.now + 400 * Fixtures.day })
        let error = #expect(throws: AppStoreVerificationError.self) { try later.verifyTransaction(token) }
        #expect(error?.code == .certificateExpired)
        #expect(error?.message.contains("current time") == true)
    }

    @Test func theThirdCertificateIsIgnored() throws {
        // Apple's Python and Node libraries never read x5c[2]: the path goes from leaf and intermediate to the
        // configured roots only. Another root, or the leaf again, in third place changes nothing.
        let other = try Fixtures.Chain()
        let verifier = try Fixtures.verifier()
        for third in [other.root, Fixtures.ca.leaf] {
            _ = try verifier.verifyTransaction(
                Fixtures.token(Fixtures.transaction(), x5c: [Fixtures.ca.leaf, Fixtures.ca.intermediate, third]))
        }
    }

    @Test func aCachedChainStillChecksEverySignatureAndDate() throws {
        let verifier = try Fixtures.verifier()
        _ = try verifier.verifyTransaction(Fixtures.token(Fixtures.transaction()))
        // Same chain bytes, now cached: a wrong key must still fail, and so must a date outside the window.
        let wrongKey = try P256.PrivateKey()
        let forged = #expect(throws: AppStoreVerificationError.self) {
            try verifier.verifyTransaction(Fixtures.token(Fixtures.transaction(), key: wrongKey))
        }
        #expect(forged?.code == .invalidSignature)
        let late = #expect(throws: AppStoreVerificationError.self) {
            try verifier.verifyTransaction(
                Fixtures.token(Fixtures.transaction(signedDate: (Fixtures.now + 400 * Fixtures.day) * 1000)))
        }
        #expect(late?.code == .certificateExpired)
        _ = try verifier.verifyTransaction(Fixtures.token(Fixtures.transaction()))
    }

    @Test func verifiesConcurrently() async throws {
        let verifier = try Fixtures.verifier()
        let token = try Fixtures.token(Fixtures.transaction())
        let count = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<25 { _ = try verifier.verifyTransaction(token) }
                    return 25
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(count == 200)
    }
}
