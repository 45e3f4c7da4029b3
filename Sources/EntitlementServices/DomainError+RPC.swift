public import EntitlementDomain
public import RPCCore

extension DomainError: RPCErrorConvertible {
    /// The one mapping of what happened to the gRPC status a client sees.
    public var rpcError: RPCError { RPCError(code: Self.rpcCode(for: code), message: message, cause: self) }

    static func rpcCode(for code: Code) -> RPCError.Code {
        switch code {
        case .invalidRequest, .malformedPayload, .verificationFailed:
            .invalidArgument
        // The store does not confirm what the caller named: the caller's request, as a client sees it.
        case .notApplicable: .invalidArgument
        case .unauthenticated: .unauthenticated
        case .permissionDenied: .permissionDenied
        case .notFound: .notFound
        case .alreadyExists: .alreadyExists
        case .wrongState, .unmappedProduct, .tenantMisconfigured, .serverMisconfigured: .failedPrecondition
        case .resourceExhausted: .resourceExhausted
        // Worth a retry once a key file is back, the store or the database answers.
        case .credentialsUnusable, .storeUnavailable, .storageUnavailable: .unavailable
        case .storageFailed, .internalError: .internal
        }
    }
}
