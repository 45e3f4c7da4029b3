import Crypto
import Encodings

/// A Standard Webhooks symmetric secret: `whsec_` followed by standard base64 of 24–64 random bytes.
///
/// The HMAC key is the **decoded bytes**, not the text: the opposite of Stripe, which keys with the whole
/// `whsec_...` string. Keeping the two apart is why this is a type and not a `String`.
public struct WebhookSecret: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    public static let prefix = "whsec_"
    /// The spec's bounds on the key (standard-webhooks.md, "Symmetric").
    public static let keyByteRange = 24...64
    /// What ``generate()`` makes: 256 bits, as the reference libraries do.
    public static let generatedKeyByteCount = 32

    /// The HMAC-SHA256 key.
    public let key: [UInt8]

    /// Parses `whsec_<base64>`. Padding is optional, as the Python reference pads before decoding; anything
    /// outside the standard alphabet (whitespace, the URL alphabet's `-` and `_`) is refused, where Python's
    /// lenient `b64decode` would silently drop it and key with fewer bytes than the endpoint's owner holds.
    public init(_ text: String) throws(StandardWebhookError) {
        // No message quotes `text`: it is, or is close to, a secret.
        guard text.hasPrefix(Self.prefix) else {
            throw StandardWebhookError(.secretMissingPrefix, "a webhook secret starts with \(Self.prefix)")
        }
        let encoded = text.utf8.dropFirst(Self.prefix.utf8.count)
        guard let key = Base64.decode(utf8: encoded, alphabet: .standard, padding: .optional) else {
            throw StandardWebhookError(.secretNotBase64, "a webhook secret is \(Self.prefix) then standard base64 (A–Z a–z 0–9 + /)")
        }
        try self.init(key: key)
    }

    /// A secret from its raw key bytes (24–64 of them).
    public init(key: [UInt8]) throws(StandardWebhookError) {
        guard Self.keyByteRange.contains(key.count) else {
            throw StandardWebhookError(
                .secretWrongLength,
                "a webhook secret's key is \(Self.keyByteRange.lowerBound)–\(Self.keyByteRange.upperBound) bytes, not \(key.count)")
        }
        self.key = key
    }

    /// A new secret of ``generatedKeyByteCount`` bytes from the CSPRNG.
    public static func generate() -> WebhookSecret {
        // 32 bytes is inside keyByteRange: the init cannot refuse.
        try! WebhookSecret(key: SecureRandom.bytes(generatedKeyByteCount))
    }

    /// `whsec_` + padded standard base64: what the endpoint's owner is given and what a library's `Webhook(...)`
    /// takes. Deliberately not ``description``.
    public var text: String { Self.prefix + Base64.encode(key, alphabet: .standard, padded: true) }

    /// Redacted, so a secret interpolated into a log line or an error does not leak.
    public var description: String { "\(Self.prefix)<redacted \(key.count) bytes>" }
    public var debugDescription: String { description }
}
