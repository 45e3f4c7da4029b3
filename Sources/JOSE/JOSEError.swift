/// Why a JOSE object (a compact JWS, a JSON Web Key Set) was refused: a stable ``Code`` to branch on and a message
/// naming the check that failed, quoting at most a bounded part of what was received.
///
/// Equality and hashing look at the code only, so a test can match `JOSEError.malformedKeySet("")` against any such
/// failure. Each store's module maps these to its own error type (the App Store's keeps JOSE's message).
public struct JOSEError: Error, Hashable, CustomStringConvertible {
    /// A struct over a private enum so that codes can be added without breaking `switch`es in other modules.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: String, Sendable {
            case malformedToken, unsupportedAlgorithm, invalidSignature, malformedKeySet
        }

        private let wrapped: Wrapped
        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// Not a compact JWS: not three base64url parts, or a header that is not a JSON object of JOSE's types.
        public static let malformedToken = Code(.malformedToken)
        /// The header's `alg` is not the algorithm the check requires (`none`, `HS256`, missing, ...).
        public static let unsupportedAlgorithm = Code(.unsupportedAlgorithm)
        /// The signature does not verify with the key it was checked against.
        public static let invalidSignature = Code(.invalidSignature)
        /// Not a JWKS document of the accepted shape, or a signing key in it that cannot be used.
        public static let malformedKeySet = Code(.malformedKeySet)

        public var description: String { wrapped.rawValue }
    }

    public let code: Code
    public let message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public static func malformedToken(_ message: String) -> JOSEError { JOSEError(code: .malformedToken, message: message) }
    public static func unsupportedAlgorithm(_ message: String) -> JOSEError {
        JOSEError(code: .unsupportedAlgorithm, message: message)
    }
    public static func invalidSignature(_ message: String) -> JOSEError {
        JOSEError(code: .invalidSignature, message: message)
    }
    public static func malformedKeySet(_ message: String) -> JOSEError {
        JOSEError(code: .malformedKeySet, message: message)
    }

    public static func == (lhs: JOSEError, rhs: JOSEError) -> Bool { lhs.code == rhs.code }

    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public var description: String { "\(code): \(message)" }
}
