import AppStoreServerAPI
import Crypto
import Foundation
import TestSupport
import Testing

@Suite struct AppStoreAPITokensTests {
    static let keyID = "2X9R4HXF34"
    static let issuerID = "57246542-96fe-1a63-e053-0824d011072a"
    static let bundleID = "com.example.app"

    static func credentials() throws -> (AppStoreAPICredentials, P256.PrivateKey) {
        let key = try P256.PrivateKey()
        let credentials = try AppStoreAPICredentials(
            p8: key.pemRepresentation, keyID: keyID, issuerID: issuerID, bundleID: bundleID)
        return (credentials, key)
    }

    struct Verdict: Decodable {
        var valid: Bool
        var error: String?
        var claims: [String: Claim]?
    }

    enum Claim: Decodable, Equatable {
        case string(String)
        case number(Int64)

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Int64.self) { self = .number(number) } else {
                self = .string(try container.decode(String.self))
            }
        }
    }

    /// PyJWT's verdict on `token` for the public half of `key` (derived by Python's `cryptography`).
    static func pyJWT(_ token: String, key: P256.PrivateKey) async throws -> Verdict {
        let python = try PythonHelper(
            packageRoot: RepositoryFiles.root, workDirectoryPrefix: "appstore-api-token",
            setupHint: "The token check needs Python 3 with PyJWT and cryptography (Tests/Interop/requirements.txt) in .venv or ENTITLEMENTD_PYTHON.")
        defer { python.removeFiles() }
        let pem = python.workDirectory.appendingPathComponent("key.p8")
        try key.pemRepresentation.write(to: pem, atomically: true, encoding: .utf8)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Resources/apple_token_check.py").path
        let output = try await python.run([script, pem.path, keyID, issuerID, bundleID, token])
        return try JSONDecoder().decode(Verdict.self, from: output)
    }

    @Test func aTokenIsWhatAppleDocumentsAsPyJWTReadsIt() async throws {
        let (credentials, key) = try Self.credentials()
        let now = Int64(Date().timeIntervalSince1970)
        let token = try AppStoreAPITokens(credentials: credentials).token(now: now)
        let verdict = try await Self.pyJWT(token, key: key)
        #expect(verdict.valid, "\(verdict.error ?? "")")
        #expect(verdict.claims?["iat"] == .number(now))
        #expect(verdict.claims?["aud"] == .string("appstoreconnect-v1"))
    }

    @Test func anotherKeyDoesNotVerify() async throws {
        let (credentials, _) = try Self.credentials()
        let token = try AppStoreAPITokens(credentials: credentials).token(now: Int64(Date().timeIntervalSince1970))
        let verdict = try await Self.pyJWT(token, key: try P256.PrivateKey())
        #expect(!verdict.valid)
    }

    @Test func aTokenIsReusedUntilFiveMinutesBeforeItExpires() throws {
        let (credentials, _) = try Self.credentials()
        let tokens = AppStoreAPITokens(credentials: credentials)
        let first = try tokens.token(now: 1_000_000)
        #expect(try tokens.token(now: 1_000_000 + 44 * 60) == first)
        let renewed = try tokens.token(now: 1_000_000 + 45 * 60)
        #expect(renewed != first)
        #expect(try tokens.token(now: 1_000_000 + 46 * 60) == renewed)
    }

    @Test func aKeyThatIsNotP256IsAConfigurationError() throws {
        #expect(throws: AppStoreServerAPIError.self) {
            try AppStoreAPICredentials(p8: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", keyID: "k", issuerID: "i", bundleID: "b")
        }
    }
}
