import CivilCalendar
import Crypto
import EntitlementDomain
@testable import EntitlementServices
import Foundation
import JOSE
import OutboundHTTP
import RPCCore
import Synchronization
import TestSupport
import Testing

/// What the scripted Google answers, by path under the app (`/purchases/...`), changed by the test as it goes;
/// 404 for anything not set.
final class GoogleAnswers: Sendable {
    private let answers = Mutex<[String: ReplyScript]>([:])

    func set(_ path: String, _ replies: ScriptedHTTPServer.Reply...) { answers.withLock { $0[path] = ReplyScript(replies) } }

    func reply(to request: ScriptedHTTPServer.Request) -> ScriptedHTTPServer.Reply {
        let prefix = ScriptedGoogle.apiPath + "/" + ScriptedGoogle.package
        guard request.target.hasPrefix(prefix) else { return .status(404) }
        let path = String(request.target.dropFirst(prefix.count))
        let key = path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path
        return answers.withLock { $0[path] ?? $0[key] }?.next()
            ?? ScriptedGoogle.error(404, "Not found", reason: "notFound", status: "NOT_FOUND")
    }
}

/// One tenant taking Google Play purchases and notifications, the engine over a fresh SQLite file, and Google scripted
/// on a loopback port: what the Play services are built from in the server.
final class PlayServices: Sendable {
    static let tenantID = "shop"
    static let audience = "https://entitlements.example.com/v1/google/notifications/shop"
    static let pushAccount = "rtdn-push@entitlementd-test.iam.gserviceaccount.com"
    static let pushKey: RSA.PrivateKey = {
        do {
            return try RSA.PrivateKey()
        } catch {
            fatalError("RSA.PrivateKey(): \(error)")
        }
    }()

    let directory: URL
    let answers = GoogleAnswers()
    let google: ScriptedGoogle
    let clock = ManualClock()
    let engine: CustomerEngine
    let tenants: TenantRegistry
    let purchases: PlayStorePurchases
    let log = Logger(label: "play-test", minimumLevel: .error)

    init(jwksURL: String? = nil) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("play-services-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let answers = self.answers
        google = try ScriptedGoogle(api: { answers.reply(to: $0) })
        let keyPath = directory.appendingPathComponent("service-account.json").path
        try google.writeKeyFile(to: keyPath)
        let jwksPath = directory.appendingPathComponent("jwks.json").path
        try Data(JSONWebKeySet(keys: ["push-1": Self.pushKey.publicKey]).jsonRepresentation).write(to: URL(fileURLWithPath: jwksPath))
        let settings = PlayStoreSettings(
            packageName: ScriptedGoogle.package, serviceAccountKeyPath: keyPath, environments: [.production, .test],
            products: ["premium": .subscription, "lifetime": .nonConsumable, "coins": .consumable],
            apiBaseURL: google.apiBaseURL,
            notifications: PlayNotificationSettings(
                audience: Self.audience, pushServiceAccount: Self.pushAccount,
                signingKeys: jwksURL.map { .url($0) } ?? .file(jwksPath)))
        let tenant = try Tenant(
            id: Self.tenantID, publicKeyHashes: [APIKey.hashString(APIKey.generate(.publicKey))!],
            products: ["premium": ["pro"], "lifetime": ["lifetime"]], playStore: settings)
        tenants = TenantRegistry(try TenantDirectory(tenants: [tenant]))
        let repository = try TestDatabase.repository(sqlitePath: directory.appendingPathComponent("entitlements.sqlite").path)
        engine = CustomerEngine(repository: repository, clock: clock)
        let http = try OutboundHTTPClient(
            configuration: .init(
                attemptTimeout: .seconds(5),
                retry: RetryPolicy(maxAttempts: 2, initialBackoff: .milliseconds(10), maxBackoff: .milliseconds(20))))
        let clock = self.clock
        purchases = PlayStorePurchases(
            tenants: tenants, http: http, now: { clock.now() }, stored: engine.purchases,
            log: Logger(label: "play", minimumLevel: .error))
    }

    deinit {
        google.server.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    var now: UnixTime { clock.now() }

    /// `path` under the app, as Google's API spells it.
    static func path(_ suffix: String) -> String { ScriptedGoogle.apiPath + "/" + ScriptedGoogle.package + suffix }

    /// A `SubscriptionPurchaseV2` answer: `premium`, active for 30 days from now unless `fields` say otherwise.
    func subscription(_ fields: [String: Any] = [:], order: String = "GPA.1234-5678-9012-34567") -> ScriptedHTTPServer.Reply {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        func time(_ milliseconds: Int64) -> String {
            formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
        }
        var object: [String: Any] = [
            "kind": "androidpublisher#subscriptionPurchaseV2", "startTime": time(now.milliseconds - Milliseconds.perDay),
            "subscriptionState": "SUBSCRIPTION_STATE_ACTIVE", "acknowledgementState": "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED",
            "lineItems": [[
                "productId": "premium", "expiryTime": time(now.milliseconds + 30 * Milliseconds.perDay),
                "autoRenewingPlan": ["autoRenewEnabled": true], "latestSuccessfulOrderId": order,
            ]],
        ]
        for (key, value) in fields { object[key] = value }
        return .status(200, String(decoding: try! JSONSerialization.data(withJSONObject: object), as: UTF8.self))
    }

    /// A Play subscription stored for `appUserID` by a Purchase, owing an acknowledgement when `owed`.
    @discardableResult
    func stored(
        _ token: String, by appUserID: String = "alice", product: String = "premium", order: String = "GPA.1234-5678-9012-34567",
        owed: Bool = true
    ) async throws -> StorePurchase {
        let now = self.now
        let subscription = product == "premium"
        let record = StorePurchase(
            tenantID: Self.tenantID, store: .playStore, originalTransactionID: token, transactionID: order, customerID: nil,
            productID: product, productType: subscription ? "subscription" : "non_consumable",
            entitlementIDs: subscription ? ["pro"] : ["lifetime"], environment: .production,
            purchasedAt: UnixTime(milliseconds: now.milliseconds - Milliseconds.perDay), originalPurchaseAt: nil,
            expiresAt: subscription ? UnixTime(milliseconds: now.milliseconds + 30 * Milliseconds.perDay) : nil, revokedAt: nil,
            revocationReason: "", ownership: .purchased, willRenew: subscription,
            appAccountToken: "", offerType: "", signedAt: now, updatedAt: now, origin: .device,
            acknowledgement: owed ? .pending(at: now) : .notRequired)
        _ = try await engine.purchases.applyStorePurchases(
            tenantID: Self.tenantID, appUserID: appUserID, purchases: [record], cause: .purchase, policy: .transfer)
        return try #require(try engine.purchases.purchase(tenantID: Self.tenantID, store: .playStore, originalTransactionID: token))
    }

    func purchase(_ token: String) throws -> StorePurchase? {
        try engine.purchases.purchase(tenantID: Self.tenantID, store: .playStore, originalTransactionID: token)
    }

    func state(_ appUserID: String) async throws -> CustomerState {
        try await engine.customers.state(tenantID: Self.tenantID, appUserID: appUserID)
    }

    func acknowledger(_ schedule: PlayAcknowledger.Schedule = PlayAcknowledger.Schedule()) -> PlayAcknowledger {
        PlayAcknowledger(engine: engine, tenants: tenants, purchases: purchases, log: log, schedule: schedule)
    }

    func notifications() -> PlayStoreNotifications {
        let clock = self.clock
        return PlayStoreNotifications(
            engine: engine, tenants: tenants, purchases: purchases,
            pushTokens: PushTokenVerifiers(tenants: tenants, http: purchases.http, now: { clock.now() }), acknowledger: nil, log: log)
    }

    /// The `Authorization` header Pub/Sub sends, signed by the tenant's push key unless `key` says otherwise.
    func pushAuthorization(
        audience: String = audience, email: String = pushAccount, key: RSA.PrivateKey = pushKey
    ) throws -> String {
        let seconds = now.milliseconds / 1000
        let claims: [String: Any] = [
            "iss": "https://accounts.google.com", "aud": audience, "email": email, "email_verified": true,
            "sub": "104729000000000000002", "iat": seconds, "exp": seconds + Seconds.perHour,
        ]
        let header = Array(#"{"alg":"RS256","kid":"push-1","typ":"JWT"}"#.utf8)
        let payload = Array(try JSONSerialization.data(withJSONObject: claims))
        return "Bearer " + (try JWSSigning.sign(headerJSON: header, payload: payload, key: key))
    }

    /// A Pub/Sub push body carrying `notification` (the RTDN's fields besides version, packageName, eventTimeMillis).
    static func push(_ notification: [String: Any], package: String = ScriptedGoogle.package, messageID: String = "1001",
        eventTime: Int64 = 1_781_481_600_000) -> [UInt8]
    {
        var data: [String: Any] = ["version": "1.0", "packageName": package, "eventTimeMillis": String(eventTime)]
        for (key, value) in notification { data[key] = value }
        let encoded = (try! JSONSerialization.data(withJSONObject: data)).base64EncodedString()
        let envelope: [String: Any] = [
            "message": ["data": encoded, "messageId": messageID, "publishTime": "2026-06-15T00:00:00.123Z"],
            "subscription": "projects/entitlementd-test/subscriptions/play-rtdn",
        ]
        return Array(try! JSONSerialization.data(withJSONObject: envelope))
    }
}
