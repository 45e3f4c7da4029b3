/// Why a published key set did not give a key: a stable ``Code`` and a message naming the URL and what went wrong.
/// Equality looks at the code only.
public struct PublishedKeySetError: Error, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The set holds no key with the `kid` asked for (after fetching it again, for a URL).
        case notFound = "not_found"
        /// The set could not be fetched: unreachable, or an answer other than 200.
        case unavailable
        /// The publisher answered with something that is not a JWKS.
        case badResponse = "bad_response"
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
    public var description: String { "\(code.rawValue): \(message)" }
}
