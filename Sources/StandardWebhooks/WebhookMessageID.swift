import Crypto
import Encodings

/// The `webhook-id` of a message: unique per event and **the same on every retry**, so the receiver can deduplicate
/// on it. The outbox stores it with the message; only `webhook-timestamp` changes between attempts.
///
/// Never holds a `.`: the signed content is `id.timestamp.body`, and a dot in the ID would let one signature stand
/// for another split of the same bytes. Every other check keeps it a valid, short header value.
public struct WebhookMessageID: Sendable, Hashable, CustomStringConvertible {
    public static let prefix = "msg_"
    /// Longer IDs are refused when read back; ours are 26 characters.
    public static let maxByteCount = 256
    /// 128 bits: unguessable and collision-free across every tenant's messages.
    static let randomByteCount = 16

    public let text: String

    /// An ID read back (from the outbox) or given by a test; refused unless it is 1–256 bytes of visible ASCII
    /// without `.`. The `msg_` prefix is ours but not required of IDs made elsewhere.
    public init(_ text: String) throws(StandardWebhookError) {
        guard !text.isEmpty, text.utf8.count <= Self.maxByteCount,
            text.utf8.allSatisfy({ (0x21...0x7E).contains($0) && $0 != UInt8(ascii: ".") })
        else {
            throw StandardWebhookError(
                .invalidMessageID,
                "a webhook message ID is 1–\(Self.maxByteCount) bytes of visible ASCII without '.', such as msg_ and base64url")
        }
        self.text = text
    }

    private init(unchecked text: String) { self.text = text }

    /// A new random ID: `msg_` + 22 characters of unpadded base64url (16 bytes from the CSPRNG).
    public static func make() -> WebhookMessageID {
        WebhookMessageID(unchecked: prefix + Base64.encode(SecureRandom.bytes(randomByteCount), alphabet: .url, padded: false))
    }

    /// An ID derived from `seed` (for example a tenant and an event's own ID, joined unambiguously): the same seed
    /// always gives the same ID, so a message rebuilt from its event keeps its `webhook-id`. The first 16 bytes of
    /// SHA-256 of `seed`, shaped like ``make()``'s.
    public static func derived(from seed: some Collection<UInt8>) -> WebhookMessageID {
        let digest = SHA256.hash(seed).prefix(randomByteCount)
        return WebhookMessageID(unchecked: prefix + Base64.encode(digest, alphabet: .url, padded: false))
    }

    public var description: String { text }
}
