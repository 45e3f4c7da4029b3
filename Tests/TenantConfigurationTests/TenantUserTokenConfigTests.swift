import EntitlementDomain
import Foundation
import TenantConfiguration
import Testing

/// The `user_tokens` object of a tenant configuration (``UserTokenSettings``).
@Suite struct TenantUserTokenConfigTests {
    static let publicHash = APIKey.hashString("pk_test_public")!
    static let secret = "a-secret-of-at-least-thirty-two-bytes!"

    /// A document whose line 4 is `"user_tokens": <settings>`.
    static func document(_ settings: String) -> String {
        "{\n\"tenants\": [\n{\n\"user_tokens\": \(settings),\n\"id\": \"demo\",\n\"public_keys\": [\"\(publicHash)\"]\n}\n]\n}\n"
    }

    static func settings(_ settings: String, directory: String = "/") throws -> UserTokenSettings {
        let read = try TenantConfigLoader.parse(Array(document(settings).utf8), file: "tenants.json", directory: directory)
        return try #require(read.tenant(id: "demo")).userTokens
    }

    @Test func absentMeansOff() throws {
        let text = "{\"tenants\": [{\"id\": \"a\", \"public_keys\": [\"\(Self.publicHash)\"]}]}"
        let directory = try TenantConfigLoader.parse(Array(text.utf8), file: "tenants.json", directory: "/")
        #expect(try #require(directory.tenant(id: "a")).userTokens == .off)
    }

    @Test func readsEveryMember() throws {
        let read = try Self.settings(
            #"{"mode": "observe", "issuer": "https://auth.example.com", "max_lifetime_seconds": 900, "#
                + #""hs256_secrets": ["\#(Self.secret)"], "allow_anonymous": false, "_comment": "rolling out"}"#)
        #expect(read == UserTokenSettings(
            mode: .observe, issuer: "https://auth.example.com", maxLifetimeSeconds: 900,
            hs256Secrets: [Array(Self.secret.utf8)], keySource: nil, allowsAnonymous: false))
        let keys = FileManager.default.temporaryDirectory.appendingPathComponent("user-token-keys-\(UUID().uuidString).json")
        try Data(#"{"keys": [{"kty": "EC", "crv": "P-256", "kid": "k", "x": "x", "y": "y"}]}"#.utf8).write(to: keys)
        defer { try? FileManager.default.removeItem(at: keys) }
        let withFile = try Self.settings(
            #"{"mode": "required", "issuer": "i", "jwks_file": "\#(keys.lastPathComponent)"}"#,
            directory: keys.deletingLastPathComponent().path)
        #expect(withFile.keySource == .file(keys.path) && withFile.maxLifetimeSeconds == 3_600 && withFile.allowsAnonymous)
        #expect(try Self.settings(#"{"mode": "required", "issuer": "i", "jwks_url": "https://auth.example.com/jwks"}"#)
            .keySource == .url("https://auth.example.com/jwks"))
    }

    @Test(arguments: [
        (#"{"mode": "on", "issuer": "i"}"#, "tenants[0].user_tokens.mode", "\"off\", \"observe\" or \"required\""),
        (#"{"issuer": "i"}"#, "tenants[0].user_tokens", "missing \"mode\""),
        (#"{"mode": "required"}"#, "tenants[0].user_tokens", "missing \"issuer\""),
        (#"{"mode": "required", "issuer": "i"}"#, "tenants[0].user_tokens", "needs hs256_secrets, jwks_file or jwks_url"),
        (#"{"mode": "off", "issuer": "i", "hs256_secrets": ["short"]}"#, "tenants[0].user_tokens.hs256_secrets[0]", "32 to 512 bytes"),
        (#"{"mode": "off", "issuer": "i", "hs256_secrets": []}"#, "tenants[0].user_tokens.hs256_secrets", "1 to 5 secrets"),
        (#"{"mode": "off", "issuer": "i", "max_lifetime_seconds": 86401}"#, "tenants[0].user_tokens.max_lifetime_seconds", "1 to 86400"),
        (#"{"mode": "off", "issuer": ""}"#, "tenants[0].user_tokens.issuer", "1 to 512 bytes"),
        (#"{"mode": "off", "issuer": "i", "jwks_url": "http://plain.example.com"}"#, "tenants[0].user_tokens.jwks_url", "https"),
        (#"{"mode": "off", "issuer": "i", "secrets": []}"#, "tenants[0].user_tokens.secrets", "secrets"),
    ])
    func aBadValueIsRefusedWhereItIs(settings: String, path: String, message: String) {
        let error = #expect(throws: TenantConfigError.self) {
            try TenantConfigLoader.parse(Array(Self.document(settings).utf8), file: "tenants.json", directory: "/")
        }
        #expect(error?.path == path, "\(String(describing: error))")
        #expect(error?.description.contains(message) == true, "\(String(describing: error))")
    }
}
