import AppStore
import Crypto
import EntitlementDomain
import EntitlementServer
import EntitlementServices
import EntitlementStorage
import Foundation
import OutboundHTTP
import RPCCore
import Synchronization
import TenantConfiguration
import TestSupport

/// entitlementd's services as `entitlementd` wires them (``ServerWiring``: the engine and its background work, the
/// gRPC router, the HTTP routes with the console and demo files), over a fresh SQLite database, for a tenant with every
/// store configured (App Store with the Server API, Google Play with push notifications, Stripe with its API, web
/// origins, webhooks) against ``FakeStores``, and a tenant with none; loaded from a tenants file by the server's own
/// loader. Made once per fuzzing process; its directory is removed at exit.
public final class FuzzServer: Sendable {
    /// The API keys of the fixture's tenants.
    public struct Keys: Sendable {
        public let publicKey = APIKey.generate(.publicKey)
        /// Scope write: every method.
        public let secretKey = APIKey.generate(.secretKey)
        /// Scope read.
        public let readKey = APIKey.generate(.secretKey)
        /// The keys of the tenant that configures no store.
        public let barePublicKey = APIKey.generate(.publicKey)
        public let bareSecretKey = APIKey.generate(.secretKey)
    }

    public static let shared: FuzzServer = {
        do {
            let server = try FuzzServer()
            atexit { try? FileManager.default.removeItem(atPath: FuzzServer.shared.directory) }
            server.seed()
            return server
        } catch {
            fatalError("cannot set up the fuzz server: \(error)")
        }
    }()

    public let directory: String
    public let keys = Keys()
    public let payloads: StorePayloads
    public let fakes: FakeStores
    public let tenants: TenantRegistry
    public let wiring: ServerWiring
    /// Grant IDs, page tokens, a redemption code and a test notification token the seeding made, for requests to name.
    public var seeded: [String] { seededNames.withLock { $0 } }
    let seededNames = Mutex<[String]>([])

    private init() throws {
        directory = NSTemporaryDirectory() + "entitlementd-fuzz-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory + "/static", withIntermediateDirectories: true)
        payloads = try StorePayloads()
        fakes = try FakeStores(payloads: payloads)
        try Self.writeFiles(in: directory, keys: keys, payloads: payloads, fakes: fakes)
        tenants = TenantRegistry(try TenantConfigLoader.load(path: directory + "/tenants.json"))
        let outbound = try OutboundHTTPClient(
            configuration: .init(
                attemptTimeout: .seconds(2),
                // Retries as the server makes them, but waits short enough for a fuzz input.
                retry: RetryPolicy(
                    maxAttempts: 2, initialBackoff: .milliseconds(1), maxBackoff: .milliseconds(2),
                    maxRetryAfter: .milliseconds(20))))
        let files = try StaticFiles(directory: directory + "/static")
        wiring = ServerWiring(
            repository: try SQLiteRepository(path: directory + "/entitlements.sqlite", synchronous: .normal),
            tenants: tenants, logger: Logger(label: "fuzz", minimumLevel: .error),
            // A gRPC-Web stream of a client that is up to date says nothing until a change or a heartbeat (25 s by
            // default): one every 100 ms makes every stream answer at once for the fuzz targets (and its path a
            // common one).
            limits: ServerWiring.Limits(grpcWebHeartbeatInterval: .milliseconds(100)), outbound: outbound,
            demoPage: files, adminConsole: try AdminConsole.files(directory: directory + "/static"))
        fakes.deliverTestNotifications(to: wiring.httpRouter)
        wiring.scheduler.start()
        wiring.background.start()
    }

    /// The keys, CA root, App Store key, service account key, push keys, Stripe key, static files and tenants file.
    private static func writeFiles(in directory: String, keys: Keys, payloads: StorePayloads, fakes: FakeStores) throws {
        func write(_ name: String, _ bytes: [UInt8]) throws {
            try Data(bytes).write(to: URL(fileURLWithPath: directory + "/" + name))
        }
        try payloads.ca.save(to: directory + "/ca")
        try write("apple-key.p8", Array(try P256.PrivateKey().pemRepresentation.utf8))
        try write("google-key.json", ScriptedGoogle.keyFile(tokenURI: fakes.googleTokenURI))
        try write("push-jwks.json", payloads.pushKeySet)
        try write("stripe-key.txt", Array("sk_test_51EntitlementdFuzzKeyForTests0123456789abcdef\n".utf8))
        for (name, text) in [
            ("index.html", "<!doctype html><script src=app.js></script>"), ("app.js", "void 0;\n"), ("style.css", "*{}\n"),
        ] {
            try write("static/" + name, Array(text.utf8))
        }
        func hash(_ key: String) -> String { APIKey.hashString(key) ?? "" }
        let webhookSecret = "whsec_" + Data(SecureRandom.bytes(32)).base64EncodedString()
        let fuzz: [String: Any] = [
            "id": FuzzVocabulary.tenantID,
            "public_keys": [hash(keys.publicKey)],
            "secret_keys": [
                ["hash": hash(keys.secretKey), "name": "admin"], ["hash": hash(keys.readKey), "name": "reader", "scope": "read"],
            ],
            "entitlements": ["pro", "plus", "support"],
            "products": [
                "com.example.monthly": ["pro"], "com.example.lifetime": ["plus"], "com.example.pass": ["pro"],
                "premium": ["pro"], "lifetime": ["plus"], "web.monthly": ["pro"],
            ],
            "app_store": [
                "bundle_id": StorePayloads.bundleID, "app_apple_id": StorePayloads.appAppleID,
                "environments": ["Production", "Sandbox"], "root_certificates": ["ca/" + LocalSigningCA.FileName.root],
                "grace_period_days": 3,
                "products": [
                    "com.example.monthly": ["type": "auto_renewable"], "com.example.lifetime": ["type": "non_consumable"],
                    "com.example.pass": ["type": "non_renewing", "duration_days": 30],
                    "com.example.coins": ["type": "consumable"],
                ],
                "server_api": [
                    "key_file": "apple-key.p8", "key_id": "FUZZKEY001", "issuer_id": "57246542-96fe-1a63-e053-0824d011072a",
                    "production_url": fakes.baseURL, "sandbox_url": fakes.baseURL, "restore_consults_history": true,
                    "reconcile_minutes": 0,
                ],
            ],
            "play_store": [
                "package_name": StorePayloads.playPackage, "service_account_key_file": "google-key.json",
                "environments": ["production", "test"],
                "products": [
                    "premium": ["type": "subscription"], "lifetime": ["type": "non_consumable"], "coins": ["type": "consumable"],
                ],
                "api_base_url": fakes.playBaseURL, "voided_purchases_poll_minutes": 0,
                "notifications": [
                    "audience": StorePayloads.pushAudience, "push_service_account": StorePayloads.pushAccount,
                    "jwks_file": "push-jwks.json",
                ],
            ],
            "stripe": [
                "webhook_secrets": [StorePayloads.stripeSecret], "environments": ["live", "test"],
                "prices": ["price_monthly": "web.monthly"], "products": ["prod_web": "web.monthly"],
                "past_due_grace_days": 3, "api_key_file": "stripe-key.txt", "api_base_url": fakes.baseURL,
            ],
            "web": ["allowed_origins": ["https://app.example.com"]],
            "webhooks": [
                ["id": "main", "url": fakes.webhookURL("main"), "secrets": [webhookSecret]],
                ["id": "gone", "url": fakes.webhookURL("gone"), "secrets": [webhookSecret], "events": ["grant", "test"]],
            ],
        ]
        let bare: [String: Any] = [
            "id": FuzzVocabulary.bareTenantID, "public_keys": [hash(keys.barePublicKey)],
            "secret_keys": [hash(keys.bareSecretKey)], "entitlements": ["pro"],
        ]
        try write("tenants.json", payloads.json(["tenants": [fuzz, bare]]))
    }
}
