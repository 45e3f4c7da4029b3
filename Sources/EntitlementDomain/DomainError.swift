/// A request the domain refuses or cannot serve: a code that says what happened, a message the caller can act on,
/// and where it was raised.
///
/// The services layer maps each code to one gRPC status and to one HTTP reply for the stores' notifications; the
/// domain knows nothing of either. `Code` is an enum, not swift-certificates' struct over a private enum, because
/// both mappings live in this package and their `switch`es must break when a code is added.
public struct DomainError: Error, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, CaseIterable {
        /// The caller's request is not valid as sent (a field missing, out of range, contradicting another).
        case invalidRequest
        /// A store's payload, or its API's answer, cannot be read: a field missing, of the wrong kind or out of range.
        case malformedPayload
        /// A signature, certificate chain or identity check of a store's payload failed.
        case verificationFailed
        /// The caller did not say who it is, or its credentials are not valid.
        case unauthenticated
        /// The caller is known but may not do this.
        case permissionDenied
        /// What the request names does not exist (a customer, grant, tenant, delivery).
        case notFound
        /// What the request would create is taken by someone else.
        case alreadyExists
        /// What the request names is not in a state that allows it (a code used already, a purchase Apple will not
        /// extend, a key used for another grant).
        case wrongState
        /// A limit on concurrent work or attempts was reached; a later attempt may pass.
        case resourceExhausted
        /// The store does not confirm the purchase as named, or the notification is about nothing this server acts
        /// on: there is nothing to apply, and a redelivery would meet the same answer.
        case notApplicable
        /// The purchase is of a product the tenant's settings do not place (no entitlement, no type).
        case unmappedProduct
        /// The tenant's settings cannot serve the request (a store it does not accept, an environment it refuses,
        /// a product configured as another kind).
        case tenantMisconfigured
        /// This server's own setup cannot serve the request (no outbound HTTP client).
        case serverMisconfigured
        /// The tenant's credentials for a store's API cannot be read or used now, or the store refuses them.
        case credentialsUnusable
        /// A store's API failed or did not answer.
        case storeUnavailable
        /// The database did not answer or refused work for now.
        case storageUnavailable
        /// The database failed in a way a retry does not fix (damaged, a conflict it cannot resolve).
        case storageFailed
        /// An invariant of this server broke.
        case internalError
    }

    public let code: Code
    public let message: String
    /// Where the error was raised (`#fileID:#line`), for logs; never shown to a caller.
    public let location: String

    public init(_ code: Code, _ message: String, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.message = message
        self.location = "\(file):\(line)"
    }

    public var description: String { "\(code.rawValue): \(message)" }

    public static func invalidRequest(_ message: String, file: String = #fileID, line: Int = #line) -> DomainError {
        DomainError(.invalidRequest, message, file: file, line: line)
    }
    public static func malformedPayload(_ message: String, file: String = #fileID, line: Int = #line) -> DomainError {
        DomainError(.malformedPayload, message, file: file, line: line)
    }
    public static func verificationFailed(_ message: String, file: String = #fileID, line: Int = #line) -> DomainError {
        DomainError(.verificationFailed, message, file: file, line: line)
    }
    public static func unauthenticated(_ message: String, file: String = #fileID, line: Int = #line) -> DomainError {
        DomainError(.unauthenticated, message, file: file, line: line)
    }
    public static func permissionDenied(_ message: String, file: String = #fileID, line: Int = #line) -> DomainError {
        DomainError(.permissionDenied, message, file: file, line: line)
    }
    public static func notFound(_ message: String, file: String = #fileID, line: Int = #line) -> DomainError {
        DomainError(.notFound, message, file: file, line: line)
    }
    public static func alreadyExists(_ message: String, file: String = #fileID, line: Int = #line) -> DomainError {
        DomainError(.alreadyExists, message, file: file, line: line)
    }
    public static func wrongState(_ message: String, file: String = #fileID, line: Int = #line) -> DomainError {
        DomainError(.wrongState, message, file: file, line: line)
    }
    public static func resourceExhausted(_ message: String, file: String = #fileID, line: Int = #line) -> DomainError {
        DomainError(.resourceExhausted, message, file: file, line: line)
    }
    public static func notApplicable(_ message: String, file: String = #fileID, line: Int = #line) -> DomainError {
        DomainError(.notApplicable, message, file: file, line: line)
    }
    public static func unmappedProduct(_ message: String, file: String = #fileID, line: Int = #line) -> DomainError {
        DomainError(.unmappedProduct, message, file: file, line: line)
    }
    public static func tenantMisconfigured(_ message: String, file: String = #fileID, line: Int = #line) -> DomainError {
        DomainError(.tenantMisconfigured, message, file: file, line: line)
    }
    public static func serverMisconfigured(_ message: String, file: String = #fileID, line: Int = #line) -> DomainError {
        DomainError(.serverMisconfigured, message, file: file, line: line)
    }
    public static func credentialsUnusable(_ message: String, file: String = #fileID, line: Int = #line) -> DomainError {
        DomainError(.credentialsUnusable, message, file: file, line: line)
    }
    public static func storeUnavailable(_ message: String, file: String = #fileID, line: Int = #line) -> DomainError {
        DomainError(.storeUnavailable, message, file: file, line: line)
    }
    public static func storageUnavailable(_ message: String, file: String = #fileID, line: Int = #line) -> DomainError {
        DomainError(.storageUnavailable, message, file: file, line: line)
    }
    public static func storageFailed(_ message: String, file: String = #fileID, line: Int = #line) -> DomainError {
        DomainError(.storageFailed, message, file: file, line: line)
    }
    public static func internalError(_ message: String, file: String = #fileID, line: Int = #line) -> DomainError {
        DomainError(.internalError, message, file: file, line: line)
    }

    /// Equality compares the code only, so tests can match a freshly built error.
    public static func == (lhs: DomainError, rhs: DomainError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

extension DomainError.Code {
    /// Whether the same request may pass later as it is: the failure is ours (the database, the tenant's or this
    /// server's settings, a key file, a limit, a fault) or the store's API's, not the request's. A store is answered
    /// 5xx for these, so it delivers again; a caller's failed attempts do not count them.
    public var mayPassLater: Bool {
        switch self {
        case .unmappedProduct, .tenantMisconfigured, .serverMisconfigured, .credentialsUnusable, .storeUnavailable,
            .storageUnavailable, .storageFailed, .resourceExhausted, .internalError:
            true
        case .invalidRequest, .malformedPayload, .verificationFailed, .unauthenticated, .permissionDenied, .notFound,
            .alreadyExists, .wrongState, .notApplicable:
            false
        }
    }
}
