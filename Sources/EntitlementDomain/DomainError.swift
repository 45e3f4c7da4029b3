/// A request the domain refuses or cannot serve, with a message the caller can act on.
///
/// The services layer maps each code to a gRPC status; the domain knows nothing of RPC.
public struct DomainError: Error, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, CaseIterable {
        case invalidArgument, notFound, alreadyExists, permissionDenied, unauthenticated, failedPrecondition,
            resourceExhausted, unavailable, internalError
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }

    public static func invalidArgument(_ message: String) -> DomainError { DomainError(.invalidArgument, message) }
    public static func notFound(_ message: String) -> DomainError { DomainError(.notFound, message) }
    public static func alreadyExists(_ message: String) -> DomainError { DomainError(.alreadyExists, message) }
    public static func permissionDenied(_ message: String) -> DomainError { DomainError(.permissionDenied, message) }
    public static func unauthenticated(_ message: String) -> DomainError { DomainError(.unauthenticated, message) }
    public static func failedPrecondition(_ message: String) -> DomainError {
        DomainError(.failedPrecondition, message)
    }
    public static func resourceExhausted(_ message: String) -> DomainError { DomainError(.resourceExhausted, message) }
    public static func unavailable(_ message: String) -> DomainError { DomainError(.unavailable, message) }
    public static func internalError(_ message: String) -> DomainError { DomainError(.internalError, message) }

    /// Equality compares the code only, so tests can match a freshly built error.
    public static func == (lhs: DomainError, rhs: DomainError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
