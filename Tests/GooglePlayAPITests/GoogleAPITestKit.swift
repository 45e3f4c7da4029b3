import Crypto
import Encodings
import Foundation
import GooglePlayAPI
import JOSE
import OutboundHTTP
import Synchronization
import TestSupport

/// RSA keys made once per test run (a key takes a tenth of a second): the service account's, Google's push signer's,
/// and one nobody trusts.
enum GoogleKeys {
    static let serviceAccount: RSA.PrivateKey = generate()
    static let pushSigner: RSA.PrivateKey = generate()
    static let stranger: RSA.PrivateKey = generate()

    private static func generate() -> RSA.PrivateKey {
        do {
            return try RSA.PrivateKey()
        } catch {
            fatalError("RSA.PrivateKey(): \(error)")
        }
    }
}

/// A clock the test moves, in milliseconds since 1970 (2026-06-15T00:00:00Z to start with).
final class TestClock: Sendable {
    private let milliseconds: Atomic<Int64>

    init(_ start: Int64 = 1_781_481_600_000) { milliseconds = Atomic(start) }

    var now: Int64 { milliseconds.load(ordering: .relaxed) }

    func advance(seconds: Int64 = 0, milliseconds delta: Int64 = 0) {
        milliseconds.add(seconds * 1000 + delta, ordering: .relaxed)
    }

    var function: @Sendable () -> Int64 { { self.now } }
}

/// Replies a scripted server gives one after another, the last one again for every later request.
final class ReplyScript: Sendable {
    private let replies: Mutex<[ScriptedHTTPServer.Reply]>

    init(_ replies: [ScriptedHTTPServer.Reply]) { self.replies = Mutex(replies) }

    func next() -> ScriptedHTTPServer.Reply {
        replies.withLock { replies in replies.count > 1 ? replies.removeFirst() : replies[0] }
    }
}

/// A count shared with a server's reply closure.
final class Counter: Sendable {
    private let count = Atomic<Int>(0)

    /// Counts one more; the new count.
    func increment() -> Int { count.add(1, ordering: .relaxed).newValue }
    var value: Int { count.load(ordering: .relaxed) }
}

/// Google, scripted on one loopback port: the token endpoint at `/token` grants `ya29.token-N` (N counting from 1)
/// unless scripted otherwise, and every other path answers from `api`.
final class ScriptedGoogle: Sendable {
    static let email = "play-api@entitlementd-test.iam.gserviceaccount.com"
    static let keyID = "5c0ffee5c0ffee5c0ffee5c0ffee5c0ffee5c0ff"
    static let package = "com.example.app"

    let server: ScriptedHTTPServer
    /// Requests to the token endpoint so far.
    let exchanges: Counter

    init(
        token: (@Sendable (Int) -> ScriptedHTTPServer.Reply)? = nil, tokenDelay: Duration = .zero,
        api: @escaping @Sendable (ScriptedHTTPServer.Request) -> ScriptedHTTPServer.Reply = { _ in .status(404) }
    ) throws {
        let exchanges = Counter()
        self.exchanges = exchanges
        server = try ScriptedHTTPServer { request in
            guard request.target == "/token" else { return api(request) }
            let number = exchanges.increment()
            if tokenDelay > .zero {
                Thread.sleep(forTimeInterval: Double(tokenDelay.components.seconds) + Double(tokenDelay.components.attoseconds) / 1e18)
            }
            if let token { return token(number) }
            return Self.granted("ya29.token-\(number)")
        }
    }

    /// The token endpoint's answer to a good assertion.
    static func granted(_ token: String, expiresIn: Int = 3599) -> ScriptedHTTPServer.Reply {
        .status(
            200, #"{"access_token":"\#(token)","expires_in":\#(expiresIn),"token_type":"Bearer"}"#,
            headers: [("Content-Type", "application/json; charset=utf-8")])
    }

    /// Google's JSON error body (`{"error": {"code", "message", "errors": [...], "status"}}`).
    static func error(_ code: Int, _ message: String, reason: String, status: String) -> ScriptedHTTPServer.Reply {
        let body = """
            {"error":{"code":\(code),"message":"\(message)","errors":[{"message":"\(message)","domain":"androidpublisher","reason":"\(reason)"}],"status":"\(status)"}}
            """
        return .status(code, body, headers: [("Content-Type", "application/json; charset=UTF-8")])
    }

    var tokenURI: String { server.baseURL + "/token" }
    var apiBaseURL: OutboundURL { OutboundURL(server.baseURL + "/androidpublisher/v3/applications")! }

    /// The requests to the API (the token endpoint's left out).
    var apiRequests: [ScriptedHTTPServer.Request] { server.requests.filter { $0.target != "/token" } }
    var tokenRequests: [ScriptedHTTPServer.Request] { server.requests.filter { $0.target == "/token" } }

    func credentials(clock: TestClock = TestClock(), http: OutboundHTTPClient? = nil) throws -> AccessTokenSource {
        let key = try ServiceAccountKey(json: Self.keyFile(tokenURI: tokenURI))
        return try AccessTokenSource(key: key, http: http ?? Self.http(), clock: clock.function)
    }

    func api(clock: TestClock = TestClock(), http: OutboundHTTPClient? = nil) throws -> (PlayDeveloperAPI, AccessTokenSource) {
        let http = try http ?? Self.http()
        let credentials = try credentials(clock: clock, http: http)
        return (PlayDeveloperAPI(packageName: Self.package, baseURL: apiBaseURL, http: http, credentials: credentials), credentials)
    }

    /// An outbound client that retries fast.
    static func http() throws -> OutboundHTTPClient {
        try OutboundHTTPClient(
            configuration: .init(
                attemptTimeout: .seconds(5),
                retry: RetryPolicy(
                    maxAttempts: 3, initialBackoff: .milliseconds(10), maxBackoff: .milliseconds(40), maxRetryAfter: .seconds(1))))
    }

    /// A service-account JSON key file as Cloud IAM hands it out.
    static func keyFile(
        tokenURI: String, email: String = email, keyID: String = keyID, key: RSA.PrivateKey = GoogleKeys.serviceAccount,
        type: String = "service_account", leaving omitted: Set<String> = []
    ) -> [UInt8] {
        var fields: [String: Any] = [
            "type": type, "project_id": "entitlementd-test", "private_key_id": keyID, "private_key": key.pemRepresentation,
            "client_email": email, "client_id": "104729000000000000001",
            "auth_uri": "https://accounts.google.com/o/oauth2/auth", "token_uri": tokenURI,
            "auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",
            "client_x509_cert_url": "https://www.googleapis.com/robot/v1/metadata/x509/play-api%40entitlementd-test.iam.gserviceaccount.com",
            "universe_domain": "googleapis.com",
        ]
        for name in omitted { fields[name] = nil }
        return Array(try! JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys]))
    }

    /// `application/x-www-form-urlencoded` fields of a request body.
    static func form(_ body: [UInt8]) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            fields[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return fields
    }
}

/// Runs PyJWT over what the tests made, and has it make Google's push tokens.
struct PyJWTGoogle {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Resources/pyjwt_google.py").path
    static let setupHint = """
        The Google API tests check tokens with PyJWT and cryptography (pinned in Tests/Interop/requirements.txt). \
        Create the venv at the package root (python3 -m venv .venv && .venv/bin/pip install -r \
        Tests/Interop/requirements.txt) or point ENTITLEMENTD_PYTHON at an interpreter that has them.
        """

    struct Decoded: Decodable {
        var header: [String: String]
        var claims: [String: Claim]
    }

    enum Claim: Decodable, Equatable {
        case string(String)
        case number(Int64)

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Int64.self) {
                self = .number(number)
            } else {
                self = .string(try container.decode(String.self))
            }
        }
    }

    let python: PythonHelper

    init() throws {
        python = try PythonHelper(packageRoot: RepositoryFiles.root, workDirectoryPrefix: "google-pyjwt", setupHint: Self.setupHint)
    }

    func removeFiles() { python.removeFiles() }

    /// PyJWT's decode of a service-account assertion with `key`'s public half, requiring `audience`.
    func verifyAssertion(_ assertion: String, key: RSA.PublicKey, audience: String) throws -> Decoded {
        let directory = python.workDirectory
        try key.pemRepresentation.write(to: directory.appendingPathComponent("public.pem"), atomically: true, encoding: .utf8)
        try assertion.write(to: directory.appendingPathComponent("assertion"), atomically: true, encoding: .utf8)
        try audience.write(to: directory.appendingPathComponent("audience"), atomically: true, encoding: .utf8)
        return try JSONDecoder().decode(Decoded.self, from: python.run([Self.script, "verify-assertion", directory.path]))
    }

    /// A push token PyJWT signs with a fresh key, and that key's JWKS.
    func mintPush(claims: [String: Any]) throws -> (token: String, jwks: [UInt8]) {
        let directory = python.workDirectory
        try JSONSerialization.data(withJSONObject: claims).write(to: directory.appendingPathComponent("claims.json"))
        _ = try python.run([Self.script, "mint-push", directory.path])
        return (
            try String(contentsOf: directory.appendingPathComponent("token"), encoding: .utf8),
            Array(try Data(contentsOf: directory.appendingPathComponent("jwks.json")))
        )
    }
}
