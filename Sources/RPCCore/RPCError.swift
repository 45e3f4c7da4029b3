/// The one error type at the RPC boundary: a status code, a message for the caller, and trailing metadata.
///
/// Handlers throw it to end a call with a specific status. Domain errors conform to ``RPCErrorConvertible``;
/// anything else a handler throws becomes `UNKNOWN` without leaking its description to the caller.
public struct RPCError: Error, Sendable, CustomStringConvertible {
    public var code: Code
    public var message: String
    public var metadata: Metadata
    /// The underlying error. A server logs it and never sends it; a client sets it when the call failed on its own
    /// side (a connection that could not be made), so a tool can tell why.
    public var cause: (any Error)?

    public init(code: Code, message: String, metadata: Metadata = Metadata(), cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.metadata = metadata
        self.cause = cause
    }

    public var description: String { "\(code): \(message)" }

    /// Maps anything a handler threw to the status the client sees.
    public init(from error: any Error) {
        switch error {
        case let rpc as RPCError: self = rpc
        case let convertible as any RPCErrorConvertible: self = convertible.rpcError
        case is CancellationError: self.init(code: .cancelled, message: "The call was cancelled.", cause: error)
        default: self.init(code: .unknown, message: "The server failed to handle the request.", cause: error)
        }
    }
}

/// A domain error that knows which status and message the caller should get.
public protocol RPCErrorConvertible: Error {
    var rpcError: RPCError { get }
}

extension RPCError {
    /// A gRPC status code (https://github.com/grpc/grpc/blob/master/doc/statuscodes.md).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: Int

        /// Codes outside 0...16 are kept as received; clients treat them as UNKNOWN.
        public init(rawValue: Int) { self.rawValue = rawValue }

        public static let ok = Code(rawValue: 0)
        public static let cancelled = Code(rawValue: 1)
        public static let unknown = Code(rawValue: 2)
        public static let invalidArgument = Code(rawValue: 3)
        public static let deadlineExceeded = Code(rawValue: 4)
        public static let notFound = Code(rawValue: 5)
        public static let alreadyExists = Code(rawValue: 6)
        public static let permissionDenied = Code(rawValue: 7)
        public static let resourceExhausted = Code(rawValue: 8)
        public static let failedPrecondition = Code(rawValue: 9)
        public static let aborted = Code(rawValue: 10)
        public static let outOfRange = Code(rawValue: 11)
        public static let unimplemented = Code(rawValue: 12)
        public static let `internal` = Code(rawValue: 13)
        public static let unavailable = Code(rawValue: 14)
        public static let dataLoss = Code(rawValue: 15)
        public static let unauthenticated = Code(rawValue: 16)

        private static let names = [
            "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS",
            "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
            "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
        ]

        public var description: String {
            Self.names.indices.contains(rawValue) ? Self.names[rawValue] : "CODE_\(rawValue)"
        }
    }
}
