import Foundation
import StandardWebhooks
import TestSupport
import Testing

/// Our signatures against the Standard Webhooks reference library for Python (`standardwebhooks` 1.1.0), both ways.
/// The reference verifier uses the real clock, so every message here is signed now.
@Suite struct ReferenceLibraryTests {
    static let bodies = [
        #"{"type":"entitlements.changed","timestamp":"2026-12-01T16:00:00Z","data":{"customer":"cus_1","version":7}}"#,
        #"{"type":"customer.updated","data":{"name":"Zoë ✓ 😀","note":"a.b.c and \"quotes\""}}"#,
        "{}",
        "",
    ]

    private func python(_ mode: String, _ cases: [[String: Any]]) async throws -> [String] {
        let helper = try PythonHelper(
            packageRoot: RepositoryFiles.root, workDirectoryPrefix: "standard-webhooks",
            setupHint: "Scripts/setup --deps-only installs standardwebhooks into .venv (Tests/Interop/requirements.txt)")
        defer { helper.removeFiles() }
        let file = helper.workDirectory.appendingPathComponent("cases.json")
        try JSONSerialization.data(withJSONObject: cases).write(to: file)
        let output = try await helper.run(["Tests/StandardWebhooksTests/Resources/standard_webhooks.py", mode, file.path])
        return try JSONDecoder().decode([String].self, from: output)
    }

    private var now: Int64 { Int64(Date().timeIntervalSince1970) }

    @Test func theLibraryAgreesOnTheSpecsVector() async throws {
        let signed = try await python("sign", [[
            "secret": TestVector.secret, "id": TestVector.id, "timestamp": TestVector.timestamp,
            "body": String(decoding: TestVector.body, as: UTF8.self),
        ]])
        #expect(signed == [TestVector.signature])
    }

    @Test func whatWeSignTheLibraryVerifies() async throws {
        let current = WebhookSecret.generate()
        let previous = try WebhookSecret(TestVector.secret)
        let now = self.now
        var cases: [[String: Any]] = []
        for body in Self.bodies {
            let id = WebhookMessageID.make()
            let header = WebhookSignature.sign(id: id, timestamp: now, body: Array(body.utf8), secrets: [current, previous])
            // While a secret rotates, a receiver still holding the previous one must accept as well as one with the new.
            for secret in [current, previous] {
                cases.append(["secret": secret.text, "id": id.text, "timestamp": String(now), "signature": header, "body": body])
            }
        }
        #expect(try await python("verify", cases) == Array(repeating: "ok", count: cases.count))
    }

    @Test func theLibraryRefusesWhatWeRefuse() async throws {
        let secret = WebhookSecret.generate()
        let id = WebhookMessageID.make()
        let now = self.now
        let body = Self.bodies[0]
        func sign(_ timestamp: Int64, _ secrets: [WebhookSecret] = [secret]) -> String {
            WebhookSignature.sign(id: id, timestamp: timestamp, body: Array(body.utf8), secrets: secrets)
        }
        let cases: [(id: String, timestamp: Int64, signature: String, body: String, accepted: Bool)] = [
            (id.text, now, sign(now), body, true),
            (id.text, now, sign(now, [WebhookSecret.generate()]), body, false),
            (id.text, now, sign(now), body + " ", false),
            (WebhookMessageID.make().text, now, sign(now), body, false),
            (id.text, now + 1, sign(now), body, false),
            (id.text, now - 400, sign(now - 400), body, false),
            (id.text, now + 400, sign(now + 400), body, false),
            (id.text, now, "v1a,\(sign(now).dropFirst(3)) \(sign(now))", body, true),
        ]
        let reference = try await python("verify", cases.map {
            ["secret": secret.text, "id": $0.id, "timestamp": String($0.timestamp), "signature": $0.signature, "body": $0.body]
        })
        for (index, item) in cases.enumerated() {
            #expect((reference[index] == "ok") == item.accepted, "the library on case \(index): \(reference[index])")
            let ours = Result { () throws(StandardWebhookError) in
                try WebhookSignature.verify(
                    id: item.id, timestamp: String(item.timestamp), signature: item.signature, body: Array(item.body.utf8),
                    secrets: [secret], now: now)
            }
            #expect(((try? ours.get()) != nil) == item.accepted, "ours on case \(index): \(ours)")
        }
    }

    @Test func whatTheLibrarySignsWeVerify() async throws {
        let secrets = [WebhookSecret.generate(), try WebhookSecret(TestVector.secret(bytes: 64, padded: false))]
        let now = self.now
        let ids = Self.bodies.map { _ in WebhookMessageID.make().text }
        var cases: [[String: Any]] = []
        for (id, body) in zip(ids, Self.bodies) {
            for secret in secrets {
                cases.append(["secret": secret.text, "id": id, "timestamp": now, "body": body])
            }
        }
        let signatures = try await python("sign", cases)
        #expect(signatures.count == cases.count)
        for (index, (id, body)) in zip(ids, Self.bodies).enumerated() {
            let (first, second) = (signatures[2 * index], signatures[2 * index + 1])
            for (signature, accepting) in [(first, [secrets[0]]), (second, [secrets[1]]), ("\(second) \(first)", [secrets[0]])] {
                let verified = Result { () throws(StandardWebhookError) in
                    try WebhookSignature.verify(
                        id: id, timestamp: String(now), signature: signature, body: Array(body.utf8), secrets: accepting, now: now)
                }
                #expect((try? verified.get()) == now, "\(verified)")
            }
            #expect(first == WebhookSignature.sign(
                id: try WebhookMessageID(id), timestamp: now, body: Array(body.utf8), secrets: [secrets[0]]))
        }
    }

    @Test func theLibraryTakesTheSecretsWeMakeAndParse() async throws {
        var texts = (0..<8).map { _ in WebhookSecret.generate().text }
        texts += [TestVector.secret, TestVector.secret(bytes: 24), TestVector.secret(bytes: 64), TestVector.secret(bytes: 33, padded: false)]
        for text in texts { #expect(throws: Never.self) { try WebhookSecret(text) } }
        #expect(try await python("secret", texts.map { ["secret": $0] }) == Array(repeating: "ok", count: texts.count))
        // Both refuse an empty key.
        #expect(try await python("secret", [["secret": "whsec_"]]) == ["refused: EmptyWebhookSecretError"])
        #expect(throws: StandardWebhookError(.secretWrongLength, "")) { try WebhookSecret("whsec_") }
    }
}
