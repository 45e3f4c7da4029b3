import StandardWebhooks
import Testing

@Suite struct WebhookSecretTests {
    @Test func theSpecsSecretKeysWithItsDecodedBytes() throws {
        let secret = try WebhookSecret(TestVector.secret)
        #expect(secret.key == TestVector.key)
        #expect(secret.text == TestVector.secret, "24 bytes need no padding, so the text comes back as given")
    }

    @Test(arguments: [24, 31, 32, 33, 64])
    func secretsOfEveryAllowedLengthParsePaddedOrNot(count: Int) throws {
        let padded = try WebhookSecret(TestVector.secret(bytes: count))
        let unpadded = try WebhookSecret(TestVector.secret(bytes: count, padded: false))
        #expect(padded.key.count == count)
        #expect(padded.key == unpadded.key)
        #expect(padded.text == TestVector.secret(bytes: count), "text is padded standard base64")
        #expect(try WebhookSecret(padded.text).key == padded.key)
    }

    @Test func refusalsSayWhyWithoutQuotingTheSecret() {
        let cases: [(String, StandardWebhookError.Code)] = [
            ("", .secretMissingPrefix),
            ("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", .secretMissingPrefix),
            ("sk_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", .secretMissingPrefix),
            ("WHSEC_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", .secretMissingPrefix),
            ("whsk_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", .secretMissingPrefix),
            ("whsec_", .secretWrongLength),
            ("whsec_====", .secretWrongLength),
            ("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaS!", .secretNotBase64),
            ("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaS-", .secretNotBase64),
            ("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaS_", .secretNotBase64),
            ("whsec_MfKQ9r8GKYqrTwjU PD8ILPZIo2LaLaSw", .secretNotBase64),
            ("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n", .secretNotBase64),
            ("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwA", .secretNotBase64),
            (TestVector.secret(bytes: 23), .secretWrongLength),
            (TestVector.secret(bytes: 65), .secretWrongLength),
            (TestVector.secret(bytes: 300), .secretWrongLength),
        ]
        for (text, code) in cases {
            do throws(StandardWebhookError) {
                _ = try WebhookSecret(text)
                Issue.record("accepted \(text.debugDescription)")
            } catch {
                #expect(error.code == code, "\(text.debugDescription): \(error)")
                let encoded = text.dropFirst(6)
                #expect(encoded.count < 8 || !error.description.contains(encoded), "the refusal quotes the secret")
                #expect(text.count < 8 || !error.description.contains(text.prefix(12)))
            }
        }
    }

    @Test func rawKeysAreBoundedToo() throws {
        #expect(throws: StandardWebhookError(.secretWrongLength, "")) { try WebhookSecret(key: []) }
        #expect(throws: StandardWebhookError(.secretWrongLength, "")) { try WebhookSecret(key: Array(repeating: 1, count: 65)) }
        #expect(try WebhookSecret(key: TestVector.key).text == TestVector.secret)
    }

    @Test func generatedSecretsAre32FreshBytes() throws {
        let secrets = (0..<64).map { _ in WebhookSecret.generate() }
        for secret in secrets {
            #expect(secret.key.count == 32)
            #expect(secret.text.hasPrefix("whsec_") && secret.text.count == 6 + 44)
            #expect(try WebhookSecret(secret.text).key == secret.key)
        }
        #expect(Set(secrets.map(\.text)).count == secrets.count)
    }

    @Test func descriptionIsRedacted() throws {
        let secret = try WebhookSecret(TestVector.secret)
        for shown in [secret.description, secret.debugDescription, "\(secret)", String(reflecting: secret)] {
            #expect(!shown.contains("MfKQ9r8G"), "\(shown)")
        }
        #expect(secret.description == "whsec_<redacted 24 bytes>")
    }
}
