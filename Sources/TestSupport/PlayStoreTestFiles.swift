import Encodings
import Foundation

/// A fresh temporary directory holding the files a tenant's `play_store` names: a Google service-account JSON key
/// (around a throwaway RSA key minted with `openssl genpkey`) and a JWKS file. `write` adds others (broken ones).
public struct PlayStoreTestFiles: TestFileDirectory, Sendable {
    public static let keyFileName = "service-account.json"
    public static let jwksFileName = "jwks.json"
    public static let clientEmail = "play-api@test-project.iam.gserviceaccount.com"

    public let directory: String
    public var keyFilePath: String { directory + "/" + Self.keyFileName }
    public var jwksFilePath: String { directory + "/" + Self.jwksFileName }
    /// The key inside ``keyFileName``, so tests can check that no error quotes it.
    public let privateKeyPEM: String

    public init() throws {
        privateKeyPEM = try Self.mintedKey.get()
        directory = try Self.makeDirectory("play")
        try write(Self.keyFileName, serviceAccountJSON())
        try write(Self.jwksFileName, #"{"keys": [{"kty": "RSA", "kid": "test", "alg": "RS256", "use": "sig", "n": "AQAB", "e": "AQAB"}]}"#)
    }

    /// The members of a service-account key file as Google Cloud writes it, with `overrides` replacing (or, for nil,
    /// removing) members.
    public func serviceAccountMembers(_ overrides: [String: (any Sendable)?] = [:]) -> [String: any Sendable] {
        var members: [String: any Sendable] = [
            "type": "service_account",
            "project_id": "test-project",
            "private_key_id": "0123456789abcdef0123456789abcdef01234567",
            "private_key": privateKeyPEM,
            "client_email": Self.clientEmail,
            "client_id": "123456789012345678901",
            "auth_uri": "https://accounts.google.com/o/oauth2/auth",
            "token_uri": "https://oauth2.googleapis.com/token",
        ]
        for (key, value) in overrides { members[key] = value }
        return members
    }

    /// A service-account key file's JSON text: ``serviceAccountMembers(_:)`` with `overrides`.
    public func serviceAccountJSON(_ overrides: [String: (any Sendable)?] = [:]) -> String {
        let members = serviceAccountMembers(overrides)
        guard let json = JSONValue(sortingKeysOf: members) else { preconditionFailure("not a JSON object: \(members)") }
        return json.text
    }

    /// One RSA key for the whole test run (minting takes a moment).
    private static let mintedKey = Result<String, MintError> { () throws(MintError) in
        let directory = NSTemporaryDirectory()
        let output = directory + "entitlementd-rsa-" + UUID().uuidString + ".pem"
        defer { try? FileManager.default.removeItem(atPath: output) }
        let status: Int32
        do {
            status = try ProcessLaunch.runBlocking(
                "/usr/bin/openssl", ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", output],
                directory: directory)
        } catch {
            throw MintError(description: "cannot run openssl genpkey: \(error)")
        }
        let pem = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard status == 0, pem.hasPrefix("-----BEGIN PRIVATE KEY-----") else {
            throw MintError(description: "openssl genpkey failed (status \(status))")
        }
        return pem
    }

    public struct MintError: Error, CustomStringConvertible, Sendable {
        public var description: String
    }
}
