import Crypto
import Encodings

/// Why a `Stripe-Signature` header was refused; the message names the check and never quotes a secret.
public struct StripeSignatureError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case missingHeader
        /// Not `t=<seconds>,v1=<hex>[,v1=...]`.
        case malformedHeader
        /// No `v1` entry matches any of the endpoint's secrets: a forged or altered request, or the wrong secret.
        case noMatchingSignature
        /// Signed longer ago than the tolerance: a replay.
        case timestampTooOld
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
    public static func == (lhs: StripeSignatureError, rhs: StripeSignatureError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

/// Stripe's webhook signatures (docs.stripe.com/webhooks#verify-manually, stripe-python's `WebhookSignature`):
/// HMAC-SHA256 over `"{t}.{raw body}"` keyed with the whole endpoint secret string (`whsec_` included), lower-case
/// hex, in one or more `v1=` entries of the `Stripe-Signature` header beside `t=`; other schemes (`v0`) are ignored,
/// so nothing can downgrade. Checked on the raw body before anything parses it.
public enum StripeSignature {
    /// stripe-python's default: only a timestamp older than this is refused (a future one is not).
    public static let defaultToleranceSeconds: Int64 = 300
    static let maxHeaderBytes = 8 * 1024
    static let scheme = "v1"

    /// Checks `header` against `body` for any of `secrets` (several while a secret is rolled); returns the signed
    /// timestamp. The signature is checked before the timestamp, as Stripe's libraries do.
    @discardableResult
    public static func verify(
        header: String?, body: [UInt8], secrets: [String], toleranceSeconds: Int64 = defaultToleranceSeconds,
        now: Int64
    ) throws(StripeSignatureError) -> Int64 {
        guard let header, !header.isEmpty else {
            throw StripeSignatureError(.missingHeader, "the request has no Stripe-Signature header")
        }
        guard header.utf8.count <= maxHeaderBytes else {
            throw StripeSignatureError(.malformedHeader, "the Stripe-Signature header is longer than \(maxHeaderBytes) bytes")
        }
        var timestamp: Int64?
        var signatures: [[UInt8]] = []
        for item in header.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { continue }
            let key = parts[0].trimmingSpaces
            let value = parts[1].trimmingSpaces
            if key == "t" {
                guard timestamp == nil, let seconds = Int64(value), seconds >= 0, value.utf8.count <= 12 else {
                    throw StripeSignatureError(.malformedHeader, "the Stripe-Signature header's t= is not one timestamp in seconds")
                }
                timestamp = seconds
            } else if key == scheme, let bytes = Hex.decode(value), bytes.count == HMACSHA256.byteCount {
                // A v1 entry that is not 32 bytes of hex can match nothing; it is skipped like Stripe's libraries do.
                signatures.append(bytes)
            }
        }
        guard let timestamp else {
            throw StripeSignatureError(.malformedHeader, "the Stripe-Signature header has no t= timestamp")
        }
        guard !signatures.isEmpty else {
            throw StripeSignatureError(.malformedHeader, "the Stripe-Signature header has no \(scheme)= signature")
        }
        let signed = Array("\(timestamp).".utf8) + body
        let matches = secrets.contains { secret in
            let expected = HMACSHA256.authenticationCode(for: signed, key: Array(secret.utf8))
            return signatures.contains { ConstantTime.equals($0, expected) }
        }
        guard matches else {
            throw StripeSignatureError(
                .noMatchingSignature,
                "no v1 signature matches the endpoint's secret\(secrets.count == 1 ? "" : "s"): the body was altered, or it was signed with another secret")
        }
        guard timestamp >= now - toleranceSeconds else {
            throw StripeSignatureError(
                .timestampTooOld, "the request was signed \(now - timestamp) s ago; at most \(toleranceSeconds) s are accepted")
        }
        return timestamp
    }

    /// The header Stripe sends for `body` signed with `secret` at `timestamp` (tests and development tooling).
    public static func header(body: [UInt8], secret: String, timestamp: Int64) -> String {
        let code = HMACSHA256.authenticationCode(for: Array("\(timestamp).".utf8) + body, key: Array(secret.utf8))
        return "t=\(timestamp),\(scheme)=\(Hex.encode(code))"
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var slice = self
        while slice.first == " " { slice = slice.dropFirst() }
        while slice.last == " " { slice = slice.dropLast() }
        return slice
    }
}
