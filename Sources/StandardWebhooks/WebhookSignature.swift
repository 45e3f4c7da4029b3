import BoundedText
import Crypto
import Encodings

/// Standard Webhooks signatures (standard-webhooks spec 1.0.0, "Signature scheme"), symmetric `v1` only:
/// HMAC-SHA256 keyed with the secret's decoded bytes over `"{webhook-id}.{webhook-timestamp}.{body}"`, standard
/// base64 with padding, one `v1,<base64>` entry per secret in the space-separated `webhook-signature` header.
///
/// Not shared with `StripeSignature`: Stripe keys with the secret's text, signs `"{t}.{body}"` and writes hex.
public enum WebhookSignature {
    public static let idHeader = "webhook-id"
    public static let timestampHeader = "webhook-timestamp"
    public static let signatureHeader = "webhook-signature"
    /// The reference libraries' window, applied both ways: older or newer than this is refused.
    public static let defaultToleranceSeconds: Int64 = 300
    static let version = "v1"
    static let maxHeaderBytes = 8 * 1024
    /// Unix seconds for the next 30,000 years; longer is not a timestamp (and would overflow Int64 arithmetic).
    static let maxTimestampDigits = 12

    /// The `webhook-signature` value for one attempt: a `v1` entry per secret, in the order given (current secret
    /// first, then those kept for a rotation window), separated by spaces.
    ///
    /// `timestamp` is this attempt's Unix time in seconds. The types rule out a `.` in the signed prefix: an ID
    /// is a ``WebhookMessageID`` (checked when made or read back) and the timestamp an integer. A negative timestamp
    /// or no secret at all is a programmer error and traps: neither can come from a clock and an endpoint.
    public static func sign(id: WebhookMessageID, timestamp: Int64, body: [UInt8], secrets: [WebhookSecret]) -> String {
        precondition(timestamp >= 0, "a webhook timestamp is Unix seconds, not \(timestamp)")
        precondition(!secrets.isEmpty, "a webhook is signed with at least one secret")
        let content = signedContent(id: id.text, timestamp: timestamp, body: body)
        return secrets.map { entry(content: content, secret: $0) }.joined(separator: " ")
    }

    /// Checks one received message against any of `secrets`; returns its timestamp. For our own tests and
    /// tooling: receivers use their Standard Webhooks library, which behaves the same on every input it accepts.
    ///
    /// As the reference libraries do: the timestamp window is checked first, then each `v1` entry against each
    /// secret in constant time; entries of other versions (`v1a`, ed25519) and `v1` entries that are not
    /// padded standard base64 of 32 bytes are skipped. Stricter than Python's on malformed input: the timestamp
    /// must be whole seconds (digits only, where Python takes `1.5`), an unpadded `v1` entry matches nothing, and
    /// an ID holding a `.` is refused.
    @discardableResult
    public static func verify(
        id: String?, timestamp: String?, signature: String?, body: [UInt8], secrets: [WebhookSecret], now: Int64,
        toleranceSeconds: Int64 = defaultToleranceSeconds
    ) throws(StandardWebhookError) -> Int64 {
        let id = try header(idHeader, id)
        let timestampText = try header(timestampHeader, timestamp)
        let signature = try header(signatureHeader, signature)
        guard !id.utf8.contains(UInt8(ascii: ".")) else {
            throw StandardWebhookError(.malformedHeader, "the \(idHeader) header holds a '.', which makes the signed content ambiguous")
        }
        guard timestampText.utf8.count <= maxTimestampDigits, timestampText.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            let seconds = Int64(timestampText)
        else {
            throw StandardWebhookError(
                .malformedHeader, "the \(timestampHeader) header \(timestampText.quotedForMessage) is not Unix time in whole seconds")
        }
        if seconds < now - toleranceSeconds {
            throw StandardWebhookError(
                .timestampTooOld, "the message was signed \(now - seconds) s ago; at most \(toleranceSeconds) s are accepted")
        }
        if seconds > now + toleranceSeconds {
            throw StandardWebhookError(
                .timestampTooNew, "the message is signed \(seconds - now) s in the future; at most \(toleranceSeconds) s are accepted")
        }
        var candidates: [[UInt8]] = []
        for item in signature.split(separator: " ") {
            let parts = item.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0] == version,
                let bytes = Base64.decode(parts[1], alphabet: .standard, padding: .required), bytes.count == HMACSHA256.byteCount
            else { continue }
            candidates.append(bytes)
        }
        guard !candidates.isEmpty else {
            throw StandardWebhookError(.malformedHeader, "the \(signatureHeader) header has no \(version),<base64 of 32 bytes> entry")
        }
        let content = signedContent(id: id, timestamp: seconds, body: body)
        // Every pair is compared, so the time taken says nothing about which secret or entry came close.
        var matched = false
        for secret in secrets {
            let expected = HMACSHA256.authenticationCode(for: content, key: secret.key)
            for candidate in candidates where ConstantTime.equals(candidate, expected) { matched = true }
        }
        guard matched else {
            throw StandardWebhookError(
                .noMatchingSignature,
                "no \(version) signature matches the secret\(secrets.count == 1 ? "" : "s"): the message was altered, or signed with another secret")
        }
        return seconds
    }

    private static func header(_ name: String, _ value: String?) throws(StandardWebhookError) -> String {
        guard let value, !value.isEmpty else {
            throw StandardWebhookError(.missingHeader, "the message has no \(name) header")
        }
        guard value.utf8.count <= maxHeaderBytes else {
            throw StandardWebhookError(.malformedHeader, "the \(name) header is longer than \(maxHeaderBytes) bytes")
        }
        return value
    }

    /// `id.timestamp.body`; the timestamp is re-rendered from the integer, as the reference libraries do.
    static func signedContent(id: String, timestamp: Int64, body: [UInt8]) -> [UInt8] {
        Array("\(id).\(timestamp).".utf8) + body
    }

    static func entry(content: [UInt8], secret: WebhookSecret) -> String {
        "\(version)," + Base64.encode(HMACSHA256.authenticationCode(for: content, key: secret.key), alphabet: .standard, padded: true)
    }
}
