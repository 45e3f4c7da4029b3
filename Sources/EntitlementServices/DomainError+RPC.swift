public import EntitlementDomain
public import RPCCore

extension DomainError: RPCErrorConvertible {
    public var rpcError: RPCError {
        let code: RPCError.Code =
            switch self.code {
            case .invalidArgument: .invalidArgument
            case .notFound: .notFound
            case .alreadyExists: .alreadyExists
            case .permissionDenied: .permissionDenied
            case .unauthenticated: .unauthenticated
            case .failedPrecondition: .failedPrecondition
            case .resourceExhausted: .resourceExhausted
            case .unavailable: .unavailable
            case .internalError: .internal
            }
        return RPCError(code: code, message: message, cause: self)
    }
}
