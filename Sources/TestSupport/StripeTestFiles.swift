import Foundation

/// A fresh temporary directory holding the file a tenant's `stripe` names: an API key file with a made-up test key.
/// `write` adds others (broken ones).
public struct StripeTestFiles: TestFileDirectory, Sendable {
    public static let keyFileName = "stripe-api-key.txt"
    /// A key shaped like Stripe's test secret keys; never a real one.
    public static let apiKey = "sk_test_51EntitlementdFakeKeyForTests0123456789abcdef"
    /// Webhook secrets shaped like Stripe's; made up.
    public static let webhookSecret = "whsec_testSecretForEntitlementd0123456789"
    public static let otherWebhookSecret = "whsec_rolledSecretForEntitlementd98765"

    public let directory: String
    public var keyFilePath: String { directory + "/" + Self.keyFileName }

    public init() throws {
        directory = try Self.makeDirectory("stripe")
        try write(Self.keyFileName, Self.apiKey + "\n")
    }
}
