import CivilCalendar
import Foundation
import Stripe
import TestSupport
import Testing

/// Stripe's webhook signatures against Stripe's own Python library, both ways, and every refusal by hand.
@Suite struct StripeSignatureTests {
    static let secret = "whsec_test_0123456789abcdefghijklmnopqrstuv"
    static let now: Int64 = 1_796_119_200
    static let bodies = [
        #"{"id":"evt_1","object":"event","type":"checkout.session.completed","data":{"object":{"id":"cs_1"}}}"#,
        #"{"id":"evt_2","type":"customer.subscription.updated","data":{"object":{"metadata":{"name":"Zoë ✓"}}}}"#,
        "{}",
    ]

    private func python(_ mode: String, _ cases: [[String: Any]]) async throws -> [String] {
        let helper = try PythonHelper(
            packageRoot: RepositoryFiles.root, workDirectoryPrefix: "stripe-signatures",
            setupHint: "Scripts/setup --deps-only installs stripe into .venv (Tests/Interop/requirements.txt)")
        defer { helper.removeFiles() }
        let file = helper.workDirectory.appendingPathComponent("cases.json")
        try JSONSerialization.data(withJSONObject: cases).write(to: file)
        let output = try await helper.run(["Tests/StripeTests/Resources/stripe_signatures.py", mode, file.path])
        return try JSONDecoder().decode([String].self, from: output)
    }

    @Test func headersStripesLibraryMakesVerify() async throws {
        let headers = try await python("sign", Self.bodies.map { ["body": $0, "secret": Self.secret, "timestamp": Self.now] })
        for (body, header) in zip(Self.bodies, headers) {
            #expect(try StripeSignature.verify(header: header, body: Array(body.utf8), secrets: [Self.secret], now: Self.now) == Self.now)
        }
    }

    @Test func headersWeMakeVerifyWithStripesLibrary() async throws {
        let now = Int64(Date().timeIntervalSince1970)
        let cases: [[String: Any]] = Self.bodies.map {
            ["body": $0, "header": StripeSignature.header(body: Array($0.utf8), secret: Self.secret, timestamp: now),
             "secret": Self.secret, "tolerance": 300]
        }
        #expect(try await python("verify", cases) == Array(repeating: "ok", count: Self.bodies.count))
    }

    /// The same refusals from Stripe's library and from ours, on headers made by hand.
    @Test func stripesLibraryAndOursRefuseTheSame() async throws {
        let now = Int64(Date().timeIntervalSince1970)
        let body = Self.bodies[0]
        let good = StripeSignature.header(body: Array(body.utf8), secret: Self.secret, timestamp: now)
        let cases: [(header: String, body: String, accepted: Bool)] = [
            (good, body, true),
            (StripeSignature.header(body: Array(body.utf8), secret: "whsec_other", timestamp: now), body, false),
            (good, body + " ", false),
            (StripeSignature.header(body: Array(body.utf8), secret: Self.secret, timestamp: now - 301), body, false),
            (StripeSignature.header(body: Array(body.utf8), secret: Self.secret, timestamp: now + Seconds.perHour), body, true),
            ("t=\(now),v1=" + String(repeating: "0", count: 64) + "," + good.split(separator: ",")[1], body, true),
            ("t=\(now)", body, false),
            ("v1=" + good.split(separator: "=").last!, body, false),
        ]
        let reference = try await python("verify", cases.map {
            ["body": $0.body, "header": $0.header, "secret": Self.secret, "tolerance": 300]
        })
        for (index, (header, body, accepted)) in cases.enumerated() {
            #expect((reference[index] == "ok") == accepted, "stripe-python on case \(index): \(reference[index])")
            let ours = Result { () throws(StripeSignatureError) in
                try StripeSignature.verify(header: header, body: Array(body.utf8), secrets: [Self.secret], now: now)
            }
            #expect(((try? ours.get()) != nil) == accepted, "ours on case \(index): \(ours)")
        }
    }

    @Test func eachRefusalSaysWhy() {
        let body = Array(Self.bodies[0].utf8)
        let good = StripeSignature.header(body: body, secret: Self.secret, timestamp: Self.now)
        func refusal(_ header: String?, body: [UInt8] = body, secrets: [String] = [Self.secret], now: Int64 = Self.now)
            -> StripeSignatureError.Code?
        {
            do throws(StripeSignatureError) {
                try StripeSignature.verify(header: header, body: body, secrets: secrets, now: now)
                return nil
            } catch {
                #expect(!error.message.contains(Self.secret), "a refusal quotes the secret")
                return error.code
            }
        }
        #expect(refusal(nil) == .missingHeader)
        #expect(refusal("") == .missingHeader)
        #expect(refusal("garbage") == .malformedHeader)
        #expect(refusal("t=abc," + good.split(separator: ",")[1]) == .malformedHeader)
        #expect(refusal("t=\(Self.now),t=\(Self.now)," + good.split(separator: ",")[1]) == .malformedHeader)
        #expect(refusal("t=\(Self.now),v0=" + String(repeating: "a", count: 64)) == .malformedHeader, "v0 is never used")
        #expect(refusal("t=\(Self.now),v1=zz") == .malformedHeader)
        #expect(refusal(String(repeating: "v1=00,", count: 2000)) == .malformedHeader)
        #expect(refusal(good, secrets: ["whsec_wrong"]) == .noMatchingSignature)
        #expect(refusal(good, secrets: []) == .noMatchingSignature)
        #expect(refusal(good, body: body + [0x20]) == .noMatchingSignature)
        #expect(refusal(good, now: Self.now + 301) == .timestampTooOld)
        #expect(refusal(good, now: Self.now + 300) == nil)
        // A forged signature is refused as forged even when also old: the signature is checked first.
        #expect(refusal(good, secrets: ["whsec_wrong"], now: Self.now + 10_000) == .noMatchingSignature)
    }

    @Test func aRolledSecretVerifiesBesideTheNewOne() throws {
        let body = Array(Self.bodies[1].utf8)
        let old = StripeSignature.header(body: body, secret: "whsec_old", timestamp: Self.now)
        let new = StripeSignature.header(body: body, secret: Self.secret, timestamp: Self.now)
        // While a secret is rolled, Stripe signs with both: one v1 per secret.
        let both = old + "," + new.split(separator: ",")[1]
        for header in [old, new, both] {
            try StripeSignature.verify(header: header, body: body, secrets: [Self.secret, "whsec_old"], now: Self.now)
        }
        #expect(throws: StripeSignatureError(.noMatchingSignature, "")) {
            try StripeSignature.verify(header: old, body: body, secrets: [Self.secret], now: Self.now)
        }
    }
}
