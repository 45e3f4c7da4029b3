/// Everything the SDK throws: the gRPC status code, the server's message (or what failed on the way), and what the
/// app can do about it.
public struct EntitlementsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The gRPC status codes, as the server and both transports report them.
    public enum Code: Int, Sendable, Hashable, CaseIterable {
        case cancelled = 1, unknown, invalidArgument, deadlineExceeded, notFound, alreadyExists, permissionDenied,
            resourceExhausted, failedPrecondition, aborted, outOfRange, unimplemented, `internal`, unavailable, dataLoss,
            unauthenticated
    }

    /// What the app can do.
    public enum Recovery: Sendable, Hashable {
        /// Nothing went wrong that the app could fix: try again later (the live status retries by itself).
        case retryLater
        /// The request was wrong (an empty purchase token, a code already redeemed): show the message, do not retry.
        case fixRequest
        /// The SDK is set up wrong: a public key that is not the tenant's, an unknown server URL, a product the
        /// tenant does not map. Retrying will not help until the configuration changes.
        case checkConfiguration
        /// Nothing: the app cancelled the call.
        case none
    }

    public var code: Code
    /// The server's `grpc-message`, or what failed locally; never a key or a signed payload.
    public var message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = String(message.prefix(1024))
    }

    public var recovery: Recovery {
        switch code {
        case .cancelled: .none
        case .unavailable, .deadlineExceeded, .resourceExhausted, .aborted, .internal, .unknown, .dataLoss: .retryLater
        case .unauthenticated, .permissionDenied, .unimplemented: .checkConfiguration
        case .invalidArgument, .notFound, .alreadyExists, .failedPrecondition, .outOfRange: .fixRequest
        }
    }

    /// Whether a later attempt of the same call may succeed.
    public var isRetryable: Bool { recovery == .retryLater }

    public var description: String { "\(code) (\(code.rawValue)): \(message)" }

    /// The code for a `grpc-status` number; an out-of-range one is `unknown`, as the gRPC spec says.
    public static func code(grpcStatus: Int) -> Code? {
        grpcStatus == 0 ? nil : Code(rawValue: grpcStatus) ?? .unknown
    }
}
