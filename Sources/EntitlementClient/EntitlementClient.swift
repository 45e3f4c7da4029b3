public import HTTP2Transport
public import PosixIO
public import ProtobufWire
public import RPCCore
public import StandardServices

/// A typed client for entitlementd's gRPC services, over one connection.
///
/// Every call carries `authorization: Bearer <key>` when a key is set.
public final class EntitlementClient: Sendable {
    private let transport: GRPCClient
    private let apiKey: String?
    /// Sent as the `entitlements-user-token` metadata of every call, for a tenant that requires user tokens.
    private let userToken: String?
    /// Applied to every call that does not pass its own.
    public let defaultTimeout: Duration?

    public init(
        configuration: GRPCClientConfiguration, apiKey: String? = nil, userToken: String? = nil,
        defaultTimeout: Duration? = .seconds(10)
    ) throws(TransportError) {
        transport = try GRPCClient(configuration: configuration)
        self.apiKey = apiKey
        self.userToken = userToken
        self.defaultTimeout = defaultTimeout
    }

    /// One request, one response.
    public func unary<Request: ProtoMessage, Response: ProtoMessage>(
        _ method: MethodDescriptor, _ request: Request, as: Response.Type = Response.self,
        metadata: Metadata = Metadata(), timeout: Duration? = nil
    ) async throws -> Response {
        let call = start(method, request, metadata: metadata, timeout: timeout ?? defaultTimeout)
        return try decodeResponse(try await call.singleMessage())
    }

    /// One request, a stream of responses; ends on `OK`, throws ``RPCError`` on any other status.
    /// Breaking out of the loop or cancelling the task cancels the call.
    public func serverStreaming<Request: ProtoMessage, Response: ProtoMessage>(
        _ method: MethodDescriptor, _ request: Request, as: Response.Type = Response.self,
        metadata: Metadata = Metadata(), timeout: Duration? = nil
    ) -> AsyncThrowingStream<Response, any Error> {
        let call = start(method, request, metadata: metadata, timeout: timeout)
        return AsyncThrowingStream { continuation in
            let reader = Task {
                do {
                    for try await bytes in call {
                        let response: Response = try decodeResponse(bytes)
                        continuation.yield(response)
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { termination in
                if case .cancelled = termination {
                    call.cancel()
                    reader.cancel()
                }
            }
        }
    }

    /// `grpc.health.v1.Health/Check`: the serving status of `service` ("" for the whole server).
    public func checkHealth(service: String = "") async throws -> HealthCheckResponse.ServingStatus {
        let response = try await unary(
            Methods.healthCheck, HealthCheckRequest(service: service), as: HealthCheckResponse.self)
        return response.status
    }

    /// Closes the connection once calls in flight have finished.
    public func close() {
        transport.close()
    }

    private func start(
        _ method: MethodDescriptor, _ request: some ProtoMessage, metadata: Metadata, timeout: Duration?
    ) -> GRPCClientCall {
        var headers = metadata
        if let apiKey { headers.addString("Bearer \(apiKey)", forKey: "authorization") }
        if let userToken { headers.addString(userToken, forKey: "entitlements-user-token") }
        return transport.call(path: method.path, request: request.serializedBytes(), metadata: headers, timeout: timeout)
    }
}

private func decodeResponse<Response: ProtoMessage>(_ bytes: [UInt8]) throws -> Response {
    do {
        return try Response(serializedBytes: bytes)
    } catch {
        throw RPCError(code: .internal, message: "Could not parse the response message: \(error)", cause: error)
    }
}
