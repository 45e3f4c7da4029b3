import AppStore
import Testing

/// Bundle ID, environment and appAppleId, after the signature checks out.
@Suite struct IdentityTests {
    private func error(_ body: () throws -> Void) -> AppStoreVerificationError? {
        #expect(throws: AppStoreVerificationError.self) { try body() }
    }

    @Test func wrongBundleIDNamesBoth() throws {
        let verifier = try Fixtures.verifier()
        let token = try Fixtures.token(Fixtures.transaction(bundleID: "com.other.app"))
        let rejected = error { _ = try verifier.verifyTransaction(token) }
        #expect(rejected?.code == .wrongBundleID)
        #expect(rejected?.message.contains("\"com.other.app\"") == true)
        #expect(rejected?.message.contains("\"\(Fixtures.bundleID)\"") == true)
        let notification = try Fixtures.token(Fixtures.notification(bundleID: "com.other.app"))
        #expect(error { _ = try verifier.verifyNotification(notification) }?.code == .wrongBundleID)
    }

    @Test func bundleIsCheckedBeforeEnvironment() throws {
        let token = try Fixtures.token(Fixtures.transaction(environment: .production, bundleID: "com.other.app"))
        #expect(error { _ = try Fixtures.verifier().verifyTransaction(token) }?.code == .wrongBundleID)
    }

    @Test func wrongEnvironmentNamesBoth() throws {
        let verifier = try Fixtures.verifier()
        let transaction = try Fixtures.token(Fixtures.transaction(environment: .production))
        let rejected = error { _ = try verifier.verifyTransaction(transaction) }
        #expect(rejected?.code == .wrongEnvironment)
        #expect(rejected?.message.contains("\"Production\"") == true)
        #expect(rejected?.message.contains("\"Sandbox\"") == true)
        let renewal = try Fixtures.token(Fixtures.renewalInfo(environment: .production))
        #expect(error { _ = try verifier.verifyRenewalInfo(renewal) }?.code == .wrongEnvironment)
        let notification = try Fixtures.token(Fixtures.notification(environment: .production))
        #expect(error { _ = try verifier.verifyNotification(notification) }?.code == .wrongEnvironment)
        let app = try Fixtures.token(Fixtures.appTransaction(environment: .production))
        let appError = error { _ = try verifier.verifyAppTransaction(app) }
        #expect(appError?.code == .wrongEnvironment)
        #expect(appError?.message.contains("receiptType") == true)
        // A sandbox transaction at a production verifier.
        let production = try Fixtures.verifier(environment: .production)
        let sandbox = try Fixtures.token(Fixtures.transaction())
        #expect(error { _ = try production.verifyTransaction(sandbox) }?.code == .wrongEnvironment)
    }

    @Test func aMissingEnvironmentIsWrong() throws {
        var payload = Fixtures.renewalInfo()
        payload["environment"] = nil
        let token = try Fixtures.token(payload)
        #expect(error { _ = try Fixtures.verifier().verifyRenewalInfo(token) }?.code == .wrongEnvironment)
    }

    @Test func appAppleIDIsCheckedInProductionOnly() throws {
        let production = try Fixtures.verifier(environment: .production)
        for appAppleID: Int64? in [42, nil] {
            let notification = try Fixtures.token(Fixtures.notification(environment: .production, appAppleID: appAppleID))
            let rejected = error { _ = try production.verifyNotification(notification) }
            #expect(rejected?.code == .wrongAppAppleID)
            #expect(rejected?.message.contains("\(Fixtures.appAppleID)") == true)
            let app = try Fixtures.token(Fixtures.appTransaction(environment: .production, appAppleID: appAppleID))
            #expect(error { _ = try production.verifyAppTransaction(app) }?.code == .wrongAppAppleID)
        }
        // Sandbox: a different or missing appAppleId is fine, as in Apple's library.
        let sandbox = try Fixtures.verifier()
        _ = try sandbox.verifyNotification(Fixtures.token(Fixtures.notification(appAppleID: 42)))
        _ = try sandbox.verifyNotification(Fixtures.token(Fixtures.notification(appAppleID: nil)))
        _ = try sandbox.verifyAppTransaction(Fixtures.token(Fixtures.appTransaction(appAppleID: 42)))
    }

    @Test func notificationIdentityComesFromTheFirstPresentSection() throws {
        let verifier = try Fixtures.verifier()
        let signedDate = LocalPayloads.nowMilliseconds()
        let summary: LocalPayloads.Object = [
            "notificationType": "RENEWAL_EXTENSION", "subtype": "SUMMARY", "signedDate": signedDate,
            "summary": ["bundleId": Fixtures.bundleID, "environment": "Sandbox", "requestIdentifier": "r"] as LocalPayloads.Object,
        ]
        _ = try verifier.verifyNotification(Fixtures.token(summary))
        var sandboxToken: LocalPayloads.Object = [
            "notificationType": "EXTERNAL_PURCHASE_TOKEN", "subtype": "UNREPORTED", "signedDate": signedDate,
            "externalPurchaseToken": ["bundleId": Fixtures.bundleID, "externalPurchaseId": "SANDBOX_abc"] as LocalPayloads.Object,
        ]
        _ = try verifier.verifyNotification(Fixtures.token(sandboxToken))
        sandboxToken["externalPurchaseToken"] = ["bundleId": Fixtures.bundleID, "externalPurchaseId": "abc"] as LocalPayloads.Object
        let production = try Fixtures.token(sandboxToken)
        #expect(error { _ = try verifier.verifyNotification(production) }?.code == .wrongEnvironment)
        // data wins over summary.
        var both = Fixtures.notification(bundleID: "com.other.app")
        both["summary"] = summary["summary"]
        let bothToken = try Fixtures.token(both)
        #expect(error { _ = try verifier.verifyNotification(bothToken) }?.code == .wrongBundleID)
        let empty = try Fixtures.token(["notificationType": "TEST", "signedDate": signedDate])
        #expect(error { _ = try verifier.verifyNotification(empty) }?.code == .wrongBundleID)
    }
}
