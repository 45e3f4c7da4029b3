public import Crypto
import Encodings
import Foundation
import Synchronization

/// Google on one scripted loopback port, for tests of the Google Play client code: the OAuth token endpoint at
/// `/token` grants `ya29.token-N` (N counting from 1) unless scripted otherwise, and every other path (the Play
/// Developer API under ``apiPath``, a JWKS) answers from `api`. Tests that need Google's behaviour rather than an
/// answer they choose use `Tests/Interop/fake_google.py`.
public final class ScriptedGoogle: Sendable {
    public static let email = "play-api@entitlementd-test.iam.gserviceaccount.com"
    public static let keyID = "5c0ffee5c0ffee5c0ffee5c0ffee5c0ffee5c0ff"
    public static let package = "com.example.app"
    /// Where the Play Developer API's applications are (`apiPath + "/" + package + "/purchases/..."`).
    public static let apiPath = "/androidpublisher/v3/applications"
    /// The service account's key, made once per test run (a key takes a tenth of a second).
    public static let serviceAccountKey: RSA.PrivateKey = {
        do {
            return try RSA.PrivateKey()
        } catch {
            fatalError("RSA.PrivateKey(): \(error)")
        }
    }()

    public let server: ScriptedHTTPServer
    /// Requests to the token endpoint so far.
    public let exchanges: Counter

    public init(
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

    public var tokenURI: String { server.baseURL + "/token" }
    public var apiBaseURL: String { server.baseURL + Self.apiPath }
    /// The requests to anything but the token endpoint.
    public var apiRequests: [ScriptedHTTPServer.Request] { server.requests.filter { $0.target != "/token" } }
    public var tokenRequests: [ScriptedHTTPServer.Request] { server.requests.filter { $0.target == "/token" } }

    /// The token endpoint's answer to a good assertion.
    public static func granted(_ token: String, expiresIn: Int = 3599) -> ScriptedHTTPServer.Reply {
        .status(
            200, #"{"access_token":"\#(token)","expires_in":\#(expiresIn),"token_type":"Bearer"}"#,
            headers: [("Content-Type", "application/json; charset=utf-8")])
    }

    /// Google's JSON error body (`{"error": {"code", "message", "errors": [...], "status"}}`).
    public static func error(_ code: Int, _ message: String, reason: String, status: String) -> ScriptedHTTPServer.Reply {
        let body = """
            {"error":{"code":\(code),"message":"\(message)","errors":[{"message":"\(message)","domain":"androidpublisher","reason":"\(reason)"}],"status":"\(status)"}}
            """
        return .status(code, body, headers: [("Content-Type", "application/json; charset=UTF-8")])
    }

    /// A service-account JSON key file as Cloud IAM hands it out; `omitted` fields left out.
    public static func keyFile(
        tokenURI: String, email: String = email, keyID: String = keyID, key: RSA.PrivateKey = serviceAccountKey,
        type: String = "service_account", leaving omitted: Set<String> = []
    ) -> [UInt8] {
        var fields: [String: Any] = [
            "type": type, "project_id": "entitlementd-test", "private_key_id": keyID, "private_key": key.pemRepresentation,
            "client_email": email, "client_id": "104729000000000000001",
            "auth_uri": "https://accounts.google.com/o/oauth2/auth", "token_uri": tokenURI,
            "auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",
            "client_x509_cert_url":
                "https://www.googleapis.com/robot/v1/metadata/x509/play-api%40entitlementd-test.iam.gserviceaccount.com",
            "universe_domain": "googleapis.com",
        ]
        for name in omitted { fields[name] = nil }
        guard let json = JSONValue(sortingKeysOf: fields) else { preconditionFailure("a key file holds strings only") }
        return Array(json.text.utf8)
    }

    /// This server's key file written to `path`.
    public func writeKeyFile(to path: String) throws {
        try Data(Self.keyFile(tokenURI: tokenURI)).write(to: URL(fileURLWithPath: path))
    }

    /// The `application/x-www-form-urlencoded` fields of a request body.
    public static func form(_ body: [UInt8]) -> [String: String] {
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

/// A count shared with a server's reply closure.
public final class Counter: Sendable {
    private let count = Atomic<Int>(0)

    public init() {}

    /// Counts one more; the new count.
    @discardableResult
    public func increment() -> Int { count.add(1, ordering: .relaxed).newValue }
    public var value: Int { count.load(ordering: .relaxed) }
}

/// Replies a scripted server gives one after another, the last one again for every later request.
public final class ReplyScript: Sendable {
    private let replies: Mutex<[ScriptedHTTPServer.Reply]>

    public init(_ replies: [ScriptedHTTPServer.Reply]) {
        precondition(!replies.isEmpty, "a script needs a reply")
        self.replies = Mutex(replies)
    }

    public func next() -> ScriptedHTTPServer.Reply {
        replies.withLock { replies in replies.count > 1 ? replies.removeFirst() : replies[0] }
    }
}
