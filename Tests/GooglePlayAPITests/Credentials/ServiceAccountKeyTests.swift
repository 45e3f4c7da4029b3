import Crypto
import Foundation
import GooglePlayAPI
import TestSupport
import Testing

/// Service-account JSON key files as Cloud IAM hands them out.
@Suite struct ServiceAccountKeyTests {
    static let tokenURI = "https://oauth2.googleapis.com/token"

    @Test func aKeyFileGivesTheAccountItsKeyAndTheTokenEndpoint() throws {
        let key = try ServiceAccountKey(json: ScriptedGoogle.keyFile(tokenURI: Self.tokenURI))
        #expect(key.clientEmail == ScriptedGoogle.email)
        #expect(key.privateKeyID == ScriptedGoogle.keyID)
        #expect(key.tokenURI == Self.tokenURI)
        #expect(key.privateKey.publicKey == GoogleKeys.serviceAccount.publicKey)
    }

    @Test func aFileOnDiskIsReadAndAMissingOrHugeOneIsAConfigurationError() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sa-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("key.json").path
        try Data(ScriptedGoogle.keyFile(tokenURI: Self.tokenURI)).write(to: URL(fileURLWithPath: path))
        #expect(try ServiceAccountKey(contentsOf: path).clientEmail == ScriptedGoogle.email)
        #expect(throws: GooglePlayAPIError(.configuration, "")) {
            try ServiceAccountKey(contentsOf: directory.appendingPathComponent("absent.json").path)
        }
        let huge = directory.appendingPathComponent("huge.json").path
        try Data(repeating: 0x20, count: ServiceAccountKey.maxFileBytes + 1).write(to: URL(fileURLWithPath: huge))
        #expect(throws: GooglePlayAPIError(.configuration, "")) { try ServiceAccountKey(contentsOf: huge) }
    }

    @Test func whatIsNotAServiceAccountKeyIsRefusedWithoutQuotingTheKey() throws {
        let cases: [(String, [UInt8])] = [
            ("not JSON", Array("-----BEGIN PRIVATE KEY-----".utf8)),
            ("another type", ScriptedGoogle.keyFile(tokenURI: Self.tokenURI, type: "authorized_user")),
            ("no email", ScriptedGoogle.keyFile(tokenURI: Self.tokenURI, leaving: ["client_email"])),
            ("no key ID", ScriptedGoogle.keyFile(tokenURI: Self.tokenURI, leaving: ["private_key_id"])),
            ("no key", ScriptedGoogle.keyFile(tokenURI: Self.tokenURI, leaving: ["private_key"])),
            ("no token URI", ScriptedGoogle.keyFile(tokenURI: Self.tokenURI, leaving: ["token_uri"])),
            ("no type", ScriptedGoogle.keyFile(tokenURI: Self.tokenURI, leaving: ["type"])),
        ]
        for (what, bytes) in cases {
            #expect(throws: GooglePlayAPIError(.configuration, ""), "\(what)") {
                try ServiceAccountKey(json: bytes, source: "sa.json")
            }
        }
        var fields = try #require(
            try JSONSerialization.jsonObject(with: Data(ScriptedGoogle.keyFile(tokenURI: Self.tokenURI))) as? [String: Any])
        fields["private_key"] = "-----BEGIN PRIVATE KEY-----\nc2VjcmV0LWJ1dC1ub3QtYS1rZXk=\n-----END PRIVATE KEY-----\n"
        let unusable = Array(try JSONSerialization.data(withJSONObject: fields))
        do {
            _ = try ServiceAccountKey(json: unusable, source: "sa.json")
            Issue.record("an unusable private key was accepted")
        } catch {
            #expect(error.code == .configuration)
            #expect(error.message.contains("sa.json") && !error.message.contains("c2VjcmV0"))
        }
    }
}
