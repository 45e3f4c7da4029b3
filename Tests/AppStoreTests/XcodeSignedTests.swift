import AppStore
import Crypto
import Foundation
import Testing

/// Real JWS from Xcode's local StoreKit configuration (Tests/Fixtures/apple/xcode).
@Suite struct XcodeSignedTests {
    static let bundleID = "com.example.naturelab.backyardbirds.example"

    private func sample(_ name: String) throws -> String {
        String(decoding: try Fixtures.appleFile("xcode/\(name)"), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func appleRootVerifier(_ environment: AppStoreEnvironment) throws -> SignedDataVerifier {
        let root = try Certificate(derEncoded: Array(Fixtures.appleFile("certs/AppleRootCA-G3.cer")))
        return try SignedDataVerifier(
            trustedRoots: [root], bundleID: Self.bundleID, appAppleID: environment == .production ? 1 : nil,
            environment: environment)
    }

    @Test(arguments: [AppStoreEnvironment.sandbox, .production])
    func everySampleGivesTheXcodeMessage(environment: AppStoreEnvironment) throws {
        let verifier = try appleRootVerifier(environment)
        let checks: [(String, (String) throws -> Void)] = [
            ("xcode-signed-transaction", { _ = try verifier.verifyTransaction($0) }),
            ("xcode-signed-renewal-info", { _ = try verifier.verifyRenewalInfo($0) }),
            ("xcode-signed-app-transaction", { _ = try verifier.verifyAppTransaction($0) }),
        ]
        for (name, verify) in checks {
            let token = try sample(name)
            let error = #expect(throws: AppStoreVerificationError.self, "\(name)") { try verify(token) }
            #expect(error?.code == .xcodeSigned, "\(name)")
            let message = error?.message ?? ""
            #expect(message.contains("Xcode's local StoreKit configuration"))
            #expect(message.contains("can never pass server verification"))
            #expect(message.contains("Sandbox tester account"))
            #expect(message.contains("real device"))
            #expect(message.contains("StoreKit Configuration to None"))
            #expect(message.contains("x5c holds a single certificate"))
        }
    }

    @Test func aThreeCertificateChainClaimingXcodeIsCalledXcodeToo() throws {
        let token = try Fixtures.token(Fixtures.transaction(environment: .xcode))
        let error = #expect(throws: AppStoreVerificationError.self) { try Fixtures.verifier().verifyTransaction(token) }
        #expect(error?.code == .xcodeSigned)
        #expect(error?.message.contains("environment is Xcode") == true)
    }

    @Test func anXcodeVerifierAcceptsTheSamplesUnverifiedLikeApplesLibrary() throws {
        let verifier = try SignedDataVerifier(
            trustedRoots: [], bundleID: Self.bundleID, appAppleID: nil, environment: .xcode)
        let transaction = try verifier.verifyTransaction(sample("xcode-signed-transaction"))
        #expect(transaction.environment?.known == .xcode)
        #expect(transaction.productId == "pass.premium")
        #expect(transaction.purchaseDate == 1_697_679_936_049)
        let renewal = try verifier.verifyRenewalInfo(sample("xcode-signed-renewal-info"))
        #expect(renewal.renewalDate == 1_700_358_336_049)
        let app = try verifier.verifyAppTransaction(sample("xcode-signed-app-transaction"))
        #expect(app.receiptCreationDate == 1_697_680_122_257)
        // Identity still applies: another bundle, or data from another environment, is refused.
        let other = try SignedDataVerifier(trustedRoots: [], bundleID: "com.other", appAppleID: nil, environment: .xcode)
        let wrongBundle = #expect(throws: AppStoreVerificationError.self) {
            try other.verifyTransaction(sample("xcode-signed-transaction"))
        }
        #expect(wrongBundle?.code == .wrongBundleID)
        let sandbox = try Fixtures.token(Fixtures.transaction())
        let strict = try SignedDataVerifier(trustedRoots: [], bundleID: Fixtures.bundleID, appAppleID: nil, environment: .xcode)
        let wrongEnvironment = #expect(throws: AppStoreVerificationError.self) { try strict.verifyTransaction(sandbox) }
        #expect(wrongEnvironment?.code == .wrongEnvironment)
    }
}
