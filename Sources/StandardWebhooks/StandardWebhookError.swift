/// Why a secret, a message ID or a signed request was refused. Messages name the check and never quote a secret.
///
/// Equality compares the code only, so tests can assert on a freshly built error.
public struct StandardWebhookError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// A secret that does not start with `whsec_`.
        case secretMissingPrefix
        /// A secret whose text after `whsec_` is not standard base64.
        case secretNotBase64
        /// A secret whose key is not 24–64 bytes (an empty one included).
        case secretWrongLength
        /// A message ID that is empty, too long, or holds a `.`, a space or a byte outside visible ASCII.
        case invalidMessageID
        /// A `webhook-id`, `webhook-timestamp` or `webhook-signature` header that is absent or empty.
        case missingHeader
        /// A header present but not in the spec's form (a timestamp that is not whole seconds, no `v1` entry...).
        case malformedHeader
        /// No `v1` entry matches any of the secrets: a forged or altered message, or the wrong secret.
        case noMatchingSignature
        /// Signed longer ago than the tolerance: a replay.
        case timestampTooOld
        /// Signed further in the future than the tolerance.
        case timestampTooNew
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
    public static func == (lhs: StandardWebhookError, rhs: StandardWebhookError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
