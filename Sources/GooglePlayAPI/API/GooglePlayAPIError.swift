import BoundedText
import Encodings

/// Why a call to Google failed, as the caller acts on it: a retry later (`unavailable`), the app's setup to fix
/// (`permissionDenied`, `configuration`), or a token Google does not know (`notFound`, `invalidRequest`).
public struct GooglePlayAPIError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// Google or the way to it is down, overloaded (429) or failing (5xx): try again later.
        case unavailable
        /// 401/403: the service account is not (yet) allowed to do this.
        case permissionDenied
        /// 404/410: no such purchase for this app (a forged token, or one long expired).
        case notFound
        /// 400: Google refused the request as made (an invalid token, a purchase in the wrong state).
        case invalidRequest
        /// The service-account key cannot be used (unreadable file, refused assertion).
        case configuration
        /// Google's answer is not what its API documents.
        case badResponse
    }

    public let code: Code
    public let message: String
    /// The HTTP status Google answered with; 0 when there was no answer.
    public let status: Int

    public init(_ code: Code, _ message: String, status: Int = 0) {
        self.code = code
        self.message = message
        self.status = status
    }

    public var description: String { "\(code.rawValue): \(message)" }

    public static func == (lhs: GooglePlayAPIError, rhs: GooglePlayAPIError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// An error answer of the Play Developer API (`{"error": {"code", "message", "status", "errors": [{"reason"}]}}`),
    /// explained where Google's words alone mislead.
    static func answer(status: Int, body: [UInt8], call: String) -> GooglePlayAPIError {
        let detail = summary(ofErrorBody: body)
        let said = detail.map { " Google said: \($0)" } ?? ""
        switch status {
        case 401, 403:
            return GooglePlayAPIError(
                .permissionDenied,
                "Google refused \(call) (\(status)).\(said) Check that the service account is invited in Play Console "
                    + "(Users and permissions) with access to this app and \"View financial data\" (needed for voided "
                    + "purchases); a newly granted account can take 24 to 48 hours to be accepted.",
                status: status)
        case 404, 410:
            return GooglePlayAPIError(.notFound, "Google knows no such purchase for \(call) (\(status)).\(said)", status: status)
        case 429, 500...599:
            return GooglePlayAPIError(.unavailable, "Google could not answer \(call) (\(status)).\(said)", status: status)
        default:
            return GooglePlayAPIError(.invalidRequest, "Google refused \(call) (\(status)).\(said)", status: status)
        }
    }

    /// The readable part of Google's error body, bounded: `message` and the first `reason`, or OAuth's
    /// `error`/`error_description`.
    static func summary(ofErrorBody body: [UInt8]) -> String? {
        guard let object = try? JSONReader.read(JSONValue.self, from: Array(body.prefix(64 * 1024))) else { return nil }
        var parts: [String] = []
        if let error = object["error"], case .object = error {
            if let message = error["message"]?.string { parts.append(message) }
            if case .array(let errors) = error["errors"], let reason = errors.first?["reason"]?.string {
                parts.append("(\(reason))")
            }
        } else if let error = object["error"]?.string {
            parts.append(error)
            if let description = object["error_description"]?.string { parts.append("(\(description))") }
        }
        guard !parts.isEmpty else { return nil }
        return parts.joined(separator: " ").truncated(toUTF8Bytes: 300)
    }
}
