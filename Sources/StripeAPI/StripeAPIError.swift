import BoundedText
import Encodings

/// Why a call to Stripe's API failed, as the caller acts on it: try later (`unavailable`), fix the tenant's setup
/// (`permissionDenied`), or an object Stripe does not know (`notFound`, `invalidRequest`).
public struct StripeAPIError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// Stripe or the way to it is down, rate-limiting (429) or failing (5xx): try again later.
        case unavailable
        /// 401/403: the API key is wrong, revoked, or lacks the permission (a restricted key).
        case permissionDenied
        /// 404: no such object in this key's account and mode.
        case notFound
        /// Another 4xx: Stripe refused the request as made.
        case invalidRequest
        /// Stripe's answer is not the object its API documents.
        case badResponse
    }

    public let code: Code
    public let message: String
    /// The HTTP status Stripe answered with; 0 when there was no answer.
    public let status: Int

    public init(_ code: Code, _ message: String, status: Int = 0) {
        self.code = code
        self.message = message
        self.status = status
    }

    public var description: String { "\(code.rawValue): \(message)" }

    public static func == (lhs: StripeAPIError, rhs: StripeAPIError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// An error answer (`{"error": {"type", "code", "message"}}`).
    static func answer(status: Int, body: [UInt8], call: String) -> StripeAPIError {
        let said = summary(ofErrorBody: body).map { " Stripe said: \($0)" } ?? ""
        switch status {
        case 401, 403:
            return StripeAPIError(
                .permissionDenied,
                "Stripe refused \(call) (\(status)).\(said) Check the tenant's api_key_file: a secret or restricted key "
                    + "of the account and mode (live or test) the webhooks come from, with read access.",
                status: status)
        case 404:
            return StripeAPIError(.notFound, "Stripe knows no such object for \(call) (404).\(said)", status: status)
        case 429, 500...599:
            return StripeAPIError(.unavailable, "Stripe could not answer \(call) (\(status)).\(said)", status: status)
        default:
            return StripeAPIError(.invalidRequest, "Stripe refused \(call) (\(status)).\(said)", status: status)
        }
    }

    /// Stripe's `error.message` and `error.code`, bounded.
    static func summary(ofErrorBody body: [UInt8]) -> String? {
        guard let object = try? JSONReader.read(JSONValue.self, from: Array(body.prefix(64 * 1024))),
            let error = object["error"], case .object = error
        else { return nil }
        var parts: [String] = []
        if let message = error["message"]?.string { parts.append(message) }
        if let code = error["code"]?.string { parts.append("(\(code))") }
        guard !parts.isEmpty else { return nil }
        return parts.joined(separator: " ").truncated(toUTF8Bytes: 300)
    }
}
