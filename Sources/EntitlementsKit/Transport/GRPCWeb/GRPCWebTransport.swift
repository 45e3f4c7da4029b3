public import EntitlementsProto
public import Foundation
import ProtobufWire

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// ``EntitlementsTransport`` over gRPC-Web (binary mode) with `URLSession`: on Apple platforms, and on Linux
/// through FoundationNetworking. `StreamStatus` is read incrementally through a data delegate, each event as its
/// frame completes. TLS is the session's (an `https` URL); the public key goes as `authorization: Bearer`.
public final class GRPCWebTransport: EntitlementsTransport {
    private let baseURL: URL
    private let publicKey: String
    private let timeout: Duration
    private let streamIdleTimeout: TimeInterval
    private let session: URLSession
    private let delegate: GRPCWebSessionDelegate
    public let userTokens: UserTokenProvider?

    /// - Parameters:
    ///   - baseURL: the server (`https://entitlements.example.com`), to which each method's path is appended.
    ///   - timeout: the deadline of every unary call, sent as `grpc-timeout`.
    ///   - streamIdleTimeout: how long a status stream may stay silent before it is taken as dead and reopened;
    ///     longer than the server's gRPC-Web heartbeat (25 s by default).
    ///   - userTokens: the user token every call carries, for a tenant that requires them.
    public init(
        baseURL: URL, publicKey: String, timeout: Duration = .seconds(10), streamIdleTimeout: TimeInterval = 60,
        configuration: URLSessionConfiguration = .default, userTokens: UserTokenProvider? = nil
    ) {
        self.userTokens = userTokens
        self.baseURL = baseURL
        self.publicKey = publicKey
        self.timeout = timeout
        self.streamIdleTimeout = streamIdleTimeout
        delegate = GRPCWebSessionDelegate()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
    }

    deinit {
        session.invalidateAndCancel()
    }

    public func identify(appUserID: String, anonymousID: String?) async throws -> IdentifyResponse {
        try await unary("Identify", IdentifyRequest(appUserID: appUserID, anonymousID: anonymousID ?? ""), about: appUserID)
    }

    public func syncStatus(appUserID: String) async throws -> CustomerStatus {
        let response: SyncStatusResponse = try await unary(
            "SyncStatus", SyncStatusRequest(appUserID: appUserID), about: appUserID)
        return response.customer ?? CustomerStatus()
    }

    public func streamStatus(appUserID: String, afterVersion: UInt64) -> AsyncThrowingStream<StatusEvent, any Error> {
        AsyncThrowingStream { continuation in
            let reader = Task {
                do {
                    let messages = start(
                        "StreamStatus", StreamStatusRequest(appUserID: appUserID, afterVersion: afterVersion), deadline: nil,
                        userToken: try await userTokens?.token(for: appUserID))
                    for try await bytes in messages { continuation.yield(try Self.decode(StatusEvent.self, bytes)) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in reader.cancel() }
        }
    }

    public func purchase(_ request: PurchaseRequest) async throws -> PurchaseResponse {
        try await unary("Purchase", request, about: request.appUserID)
    }

    public func restore(_ request: RestoreRequest) async throws -> RestoreResponse {
        try await unary("Restore", request, about: request.appUserID)
    }

    public func setAttributes(_ request: SetAttributesRequest) async throws -> SetAttributesResponse {
        try await unary("SetAttributes", request, about: request.appUserID)
    }

    public func getOfferEligibility(_ request: GetOfferEligibilityRequest) async throws -> GetOfferEligibilityResponse {
        try await unary("GetOfferEligibility", request, about: request.appUserID)
    }

    public func signOffer(_ request: SignOfferRequest) async throws -> SignOfferResponse {
        try await unary("SignOffer", request, about: request.appUserID)
    }

    /// One call about `appUserID` (whose user token it carries, if any).
    private func unary<Response: ProtoMessage>(_ method: String, _ request: some ProtoMessage, about appUserID: String)
        async throws -> Response
    {
        var response: Response?
        let userToken = try await userTokens?.token(for: appUserID)
        for try await bytes in start(method, request, deadline: timeout, userToken: userToken) {
            guard response == nil else {
                throw EntitlementsError(code: .internal, message: "The server sent more than one response to \(method).")
            }
            response = try Self.decode(Response.self, bytes)
        }
        guard let response else {
            if Task.isCancelled { throw EntitlementsError(code: .cancelled, message: "The call was cancelled.") }
            throw EntitlementsError(code: .internal, message: "The server sent no response to \(method).")
        }
        return response
    }

    /// `grpc-timeout`: at most 8 digits, so milliseconds while they fit, then seconds, then hours.
    static func grpcTimeout(_ deadline: Duration) -> String {
        let (seconds, attoseconds) = deadline.components
        // Scaled only below 100,000 s: a caller's `.seconds(Int64.max)` (no real deadline) must not overflow.
        guard seconds >= 0 else { return "1m" }
        if seconds < 100_000 { return "\(max(1, seconds * 1000 + attoseconds / 1_000_000_000_000_000))m" }
        if seconds < 100_000_000 { return "\(seconds)S" }
        return "\(min(seconds / 3600, 99_999_999))H"
    }

    /// Starts the call; the stream yields each response message and ends with the call's status. Ending the
    /// stream's iteration (or cancelling its task) cancels the request.
    private func start(
        _ method: String, _ request: some ProtoMessage, deadline: Duration?, userToken: String?
    ) -> AsyncThrowingStream<[UInt8], any Error> {
        var urlRequest = URLRequest(url: baseURL.appendingPathComponent("entitlements.v1.EntitlementService/\(method)"))
        urlRequest.httpMethod = "POST"
        urlRequest.setValue("application/grpc-web+proto", forHTTPHeaderField: "content-type")
        urlRequest.setValue("application/grpc-web+proto", forHTTPHeaderField: "accept")
        urlRequest.setValue("1", forHTTPHeaderField: "x-grpc-web")
        urlRequest.setValue("Bearer \(publicKey)", forHTTPHeaderField: "authorization")
        if let userToken { urlRequest.setValue(userToken, forHTTPHeaderField: "entitlements-user-token") }
        if let deadline {
            urlRequest.setValue(Self.grpcTimeout(deadline), forHTTPHeaderField: "grpc-timeout")
            // The server ends the call at its deadline; the extra second lets its status arrive first.
            let (seconds, attoseconds) = deadline.components
            urlRequest.timeoutInterval = Double(seconds) + Double(attoseconds) / 1e18 + 1
        } else {
            urlRequest.timeoutInterval = streamIdleTimeout
        }
        let message = request.serializedBytes()
        let length = UInt32(message.count)
        urlRequest.httpBody = Data([0, UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + message)

        let (stream, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self, throwing: (any Error).self)
        let call = GRPCWebCall(continuation: continuation)
        let task = session.dataTask(with: urlRequest)
        delegate.register(call, for: task)
        continuation.onTermination = { termination in
            if case .cancelled = termination { task.cancel() }
        }
        task.resume()
        return stream
    }

    private static func decode<Message: ProtoMessage>(_ type: Message.Type, _ bytes: [UInt8]) throws -> Message {
        do {
            return try Message(serializedBytes: bytes)
        } catch {
            throw EntitlementsError(code: .internal, message: "Could not parse the server's \(Message.self): \(error)")
        }
    }
}
