/// Why a certificate, key or signature operation failed.
///
/// Callers branch on `code` (it decides the user-facing outcome class); `message` says exactly which check failed,
/// so equality and hashing look at the code only and tests can match `CryptoError.expired("")` against any expiry.
public struct CryptoError: Error, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The input is not a well-formed encoding (DER, PEM, point, signature) of what was asked for.
        case malformed
        /// Well-formed, but not something this module handles (another curve or key type).
        case unsupported
        case invalidSignature
        /// The certificate chain does not lead to a trusted root, or a certificate in it is not allowed where it is.
        case chainInvalid
        case expired
        case notYetValid
        /// OpenSSL failed for a reason unrelated to the input (allocation, provider).
        case internalError
    }

    public let code: Code
    public let message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public static func malformed(_ message: String) -> CryptoError { CryptoError(code: .malformed, message: message) }
    public static func unsupported(_ message: String) -> CryptoError { CryptoError(code: .unsupported, message: message) }
    public static func invalidSignature(_ message: String) -> CryptoError {
        CryptoError(code: .invalidSignature, message: message)
    }
    public static func chainInvalid(_ message: String) -> CryptoError { CryptoError(code: .chainInvalid, message: message) }
    public static func expired(_ message: String) -> CryptoError { CryptoError(code: .expired, message: message) }
    public static func notYetValid(_ message: String) -> CryptoError { CryptoError(code: .notYetValid, message: message) }
    public static func internalError(_ message: String) -> CryptoError {
        CryptoError(code: .internalError, message: message)
    }

    public static func == (lhs: CryptoError, rhs: CryptoError) -> Bool { lhs.code == rhs.code }

    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public var description: String { "\(code.rawValue): \(message)" }
}
