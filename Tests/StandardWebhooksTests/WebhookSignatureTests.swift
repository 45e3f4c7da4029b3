import Foundation
import StandardWebhooks
import Testing

/// Signing against the spec's vector, and every acceptance and refusal of the verifier by hand.
@Suite struct WebhookSignatureTests {
    static let vectorID = try! WebhookMessageID(TestVector.id)
    static let vectorSecret = try! WebhookSecret(TestVector.secret)
    static let other = try! WebhookSecret(TestVector.secret(bytes: 32))

    private func verify(
        id: String? = TestVector.id, timestamp: String? = String(TestVector.timestamp), signature: String?,
        body: [UInt8] = TestVector.body, secrets: [WebhookSecret] = [vectorSecret], now: Int64 = TestVector.timestamp
    ) -> StandardWebhookError.Code? {
        do throws(StandardWebhookError) {
            let signed = try WebhookSignature.verify(
                id: id, timestamp: timestamp, signature: signature, body: body, secrets: secrets, now: now)
            #expect(String(signed) == timestamp)
            return nil
        } catch {
            #expect(!error.description.contains("MfKQ9r8G"), "a refusal quotes the secret")
            return error.code
        }
    }

    @Test func theSpecsTestVector() {
        let header = WebhookSignature.sign(
            id: Self.vectorID, timestamp: TestVector.timestamp, body: TestVector.body, secrets: [Self.vectorSecret])
        #expect(header == TestVector.signature)
        #expect(verify(signature: TestVector.signature) == nil)
    }

    @Test func headerNamesAreTheSpecs() {
        #expect(
            [WebhookSignature.idHeader, WebhookSignature.timestampHeader, WebhookSignature.signatureHeader]
                == ["webhook-id", "webhook-timestamp", "webhook-signature"])
    }

    @Test func rotationSignsWithEverySecretInOrder() {
        let both = WebhookSignature.sign(
            id: Self.vectorID, timestamp: TestVector.timestamp, body: TestVector.body, secrets: [Self.other, Self.vectorSecret])
        let entries = both.split(separator: " ").map(String.init)
        #expect(entries.count == 2)
        #expect(entries[1] == TestVector.signature)
        #expect(entries[0] == WebhookSignature.sign(
            id: Self.vectorID, timestamp: TestVector.timestamp, body: TestVector.body, secrets: [Self.other]))
        #expect(entries.allSatisfy { $0.hasPrefix("v1,") && $0.count == 3 + 44 })
        // A receiver holding either secret, or both, accepts; one holding neither does not.
        for secrets in [[Self.vectorSecret], [Self.other], [Self.other, Self.vectorSecret], [WebhookSecret.generate(), Self.other]] {
            #expect(verify(signature: both, secrets: secrets) == nil)
        }
        #expect(verify(signature: both, secrets: [WebhookSecret.generate()]) == .noMatchingSignature)
        #expect(verify(signature: both, secrets: []) == .noMatchingSignature)
    }

    @Test func tamperingIsRefused() {
        let good = TestVector.signature
        #expect(verify(signature: good, body: TestVector.body + [0x20]) == .noMatchingSignature)
        #expect(verify(signature: good, body: Array(#"{"test": 2432232315}"#.utf8)) == .noMatchingSignature)
        #expect(verify(signature: good, body: []) == .noMatchingSignature)
        #expect(verify(id: "msg_p5jXN8AQM9LWM0D4loKWxJeK", signature: good) == .noMatchingSignature)
        #expect(verify(timestamp: String(TestVector.timestamp + 1), signature: good) == .noMatchingSignature)
        #expect(verify(signature: good, secrets: [Self.other]) == .noMatchingSignature)
        // A flipped bit in the signature itself.
        #expect(verify(signature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OA=") == .noMatchingSignature)
        // The same MAC under another version is not a v1 signature.
        #expect(verify(signature: "v2," + good.dropFirst(3)) == .malformedHeader)
    }

    @Test func theTimestampWindowIsFiveMinutesBothWays() {
        let good = TestVector.signature
        let t = TestVector.timestamp
        #expect(verify(signature: good, now: t + 300) == nil)
        #expect(verify(signature: good, now: t - 300) == nil)
        #expect(verify(signature: good, now: t + 301) == .timestampTooOld)
        #expect(verify(signature: good, now: t - 301) == .timestampTooNew)
        // The window is checked before the signature, as the reference libraries do.
        #expect(verify(signature: good, secrets: [Self.other], now: t + 10_000) == .timestampTooOld)
        let custom = Result { () throws(StandardWebhookError) in
            try WebhookSignature.verify(
                id: TestVector.id, timestamp: String(t), signature: good, body: TestVector.body, secrets: [Self.vectorSecret],
                now: t + 301, toleranceSeconds: 600)
        }
        #expect((try? custom.get()) == t)
    }

    @Test func otherVersionsAndUnusableEntriesAreSkipped() {
        let good = TestVector.signature
        let ed25519 = "v1a," + String(repeating: "A", count: 86) + "=="
        #expect(verify(signature: "\(ed25519) \(good)") == nil)
        #expect(verify(signature: "\(good) \(ed25519)") == nil)
        #expect(verify(signature: "v1,zz \(good)") == nil, "a v1 entry that is not base64 of 32 bytes is skipped")
        #expect(verify(signature: "garbage \(good)") == nil)
        #expect(verify(signature: "  \(good)  ") == nil, "runs of spaces separate nothing")
        #expect(verify(signature: "v1,\(String(repeating: "A", count: 43))= \(good)") == nil)
    }

    @Test func malformedHeadersAreRefusedByCode() {
        let good = TestVector.signature
        #expect(verify(id: nil, signature: good) == .missingHeader)
        #expect(verify(id: "", signature: good) == .missingHeader)
        #expect(verify(timestamp: nil, signature: good) == .missingHeader)
        #expect(verify(timestamp: "", signature: good) == .missingHeader)
        #expect(verify(signature: nil) == .missingHeader)
        #expect(verify(signature: "") == .missingHeader)
        #expect(verify(id: "msg_a.b", signature: good) == .malformedHeader)
        #expect(verify(id: String(repeating: "a", count: 9000), signature: good) == .malformedHeader)
        for timestamp in ["abc", "1614265330.0", "-1614265330", " 1614265330", "1614265330 ", "+1614265330", "0x10", "1234567890123"] {
            #expect(verify(timestamp: timestamp, signature: good) == .malformedHeader, "\(timestamp)")
        }
        for signature in ["garbage", "v1", "v1,", "v1,zz", "v1a,\(good.dropFirst(3))", good.replacingOccurrences(of: ",", with: "="),
                          String(good.dropLast()), String(repeating: "v1,AAAA ", count: 2000)] {
            #expect(verify(signature: signature) == .malformedHeader, "\(signature.prefix(40))")
        }
    }
}
