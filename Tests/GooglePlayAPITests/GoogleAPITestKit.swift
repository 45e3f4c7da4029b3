import Crypto
import Foundation
import GooglePlayAPI
import OutboundHTTP
import TestSupport

/// RSA keys made once per test run (a key takes a tenth of a second): the service account's (``ScriptedGoogle``'s),
/// Google's push signer's, and one nobody trusts.
enum GoogleKeys {
    static let serviceAccount: RSA.PrivateKey = ScriptedGoogle.serviceAccountKey
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

extension ScriptedGoogle {
    var apiBase: OutboundURL { OutboundURL(apiBaseURL)! }

    func credentials(clock: ManualClock = ManualClock(), http: OutboundHTTPClient? = nil) throws -> AccessTokenSource {
        let key = try ServiceAccountKey(json: Self.keyFile(tokenURI: tokenURI))
        return try AccessTokenSource(key: key, http: http ?? Self.http(), clock: { clock.milliseconds })
    }

    func api(clock: ManualClock = ManualClock(), http: OutboundHTTPClient? = nil) throws -> (PlayDeveloperAPI, AccessTokenSource) {
        let http = try http ?? Self.http()
        let credentials = try credentials(clock: clock, http: http)
        return (PlayDeveloperAPI(packageName: Self.package, baseURL: apiBase, http: http, credentials: credentials), credentials)
    }

    /// An outbound client that retries fast.
    static func http() throws -> OutboundHTTPClient {
        try OutboundHTTPClient(
            configuration: .init(
                attemptTimeout: .seconds(5),
                retry: RetryPolicy(
                    maxAttempts: 3, initialBackoff: .milliseconds(10), maxBackoff: .milliseconds(40), maxRetryAfter: .seconds(1))))
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
    func verifyAssertion(_ assertion: String, key: RSA.PublicKey, audience: String) async throws -> Decoded {
        let directory = python.workDirectory
        try key.pemRepresentation.write(to: directory.appendingPathComponent("public.pem"), atomically: true, encoding: .utf8)
        try assertion.write(to: directory.appendingPathComponent("assertion"), atomically: true, encoding: .utf8)
        try audience.write(to: directory.appendingPathComponent("audience"), atomically: true, encoding: .utf8)
        return try await JSONDecoder().decode(Decoded.self, from: python.run([Self.script, "verify-assertion", directory.path]))
    }

    /// A push token PyJWT signs with a fresh key, and that key's JWKS.
    func mintPush(claims: [String: Any]) async throws -> (token: String, jwks: [UInt8]) {
        let directory = python.workDirectory
        try JSONSerialization.data(withJSONObject: claims).write(to: directory.appendingPathComponent("claims.json"))
        _ = try await python.run([Self.script, "mint-push", directory.path])
        return (
            try String(contentsOf: directory.appendingPathComponent("token"), encoding: .utf8),
            Array(try Data(contentsOf: directory.appendingPathComponent("jwks.json")))
        )
    }
}
