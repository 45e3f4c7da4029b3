import EntitlementClient
public import EntitlementsKit
public import EntitlementsProto
public import HTTP2Transport
import PosixIO
import ProtobufWire
import RPCCore

/// ``EntitlementsTransport`` over native gRPC (HTTP/2, TLS when configured) with the project's client: for Linux
/// apps, servers and tests. Errors come out as ``EntitlementsError``.
public struct GRPCTransport: EntitlementsTransport {
    let client: EntitlementClient
    public let userTokens: UserTokenProvider?

    /// - Parameters:
    ///   - publicKey: the app's public key (`pk_...`), sent as `authorization: Bearer`.
    ///   - timeout: the deadline of every unary call.
    ///   - userTokens: the user token every call carries, for a tenant that requires them.
    public init(
        configuration: GRPCClientConfiguration, publicKey: String, timeout: Duration = .seconds(10),
        userTokens: UserTokenProvider? = nil
    ) throws {
        client = try EntitlementClient(configuration: configuration, apiKey: publicKey, defaultTimeout: timeout)
        self.userTokens = userTokens
    }

    public func identify(appUserID: String, anonymousID: String?) async throws -> IdentifyResponse {
        try await unary(
            EntitlementClient.Methods.identify, IdentifyRequest(appUserID: appUserID, anonymousID: anonymousID ?? ""),
            about: appUserID)
    }

    public func syncStatus(appUserID: String) async throws -> CustomerStatus {
        let response: SyncStatusResponse = try await unary(
            EntitlementClient.Methods.syncStatus, SyncStatusRequest(appUserID: appUserID), about: appUserID)
        return response.customer ?? CustomerStatus()
    }

    public func streamStatus(appUserID: String, afterVersion: UInt64) -> AsyncThrowingStream<StatusEvent, any Error> {
        AsyncThrowingStream { continuation in
            let reader = Task {
                do {
                    let events: AsyncThrowingStream<StatusEvent, any Error> = client.serverStreaming(
                        EntitlementClient.Methods.streamStatus,
                        StreamStatusRequest(appUserID: appUserID, afterVersion: afterVersion),
                        metadata: try await metadata(about: appUserID))
                    for try await event in events { continuation.yield(event) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: Self.entitlementsError(error))
                }
            }
            continuation.onTermination = { _ in reader.cancel() }
        }
    }

    public func purchase(_ request: PurchaseRequest) async throws -> PurchaseResponse {
        try await unary(EntitlementClient.Methods.purchase, request, about: request.appUserID)
    }

    public func restore(_ request: RestoreRequest) async throws -> RestoreResponse {
        try await unary(EntitlementClient.Methods.restore, request, about: request.appUserID)
    }

    public func setAttributes(_ request: SetAttributesRequest) async throws -> SetAttributesResponse {
        try await unary(EntitlementClient.Methods.setAttributes, request, about: request.appUserID)
    }

    public func getOfferEligibility(_ request: GetOfferEligibilityRequest) async throws -> GetOfferEligibilityResponse {
        try await unary(EntitlementClient.Methods.getOfferEligibility, request, about: request.appUserID)
    }

    public func signOffer(_ request: SignOfferRequest) async throws -> SignOfferResponse {
        try await unary(EntitlementClient.Methods.signOffer, request, about: request.appUserID)
    }

    /// Closes the connection once calls in flight have finished.
    public func close() {
        client.close()
    }

    /// One call about `appUserID`, with their user token if any; errors as ``EntitlementsError``.
    private func unary<Request: ProtoMessage, Response: ProtoMessage>(
        _ method: MethodDescriptor, _ request: Request, about appUserID: String
    ) async throws -> Response {
        do {
            return try await client.unary(method, request, metadata: try await metadata(about: appUserID))
        } catch {
            throw Self.entitlementsError(error)
        }
    }

    /// The user token of `appUserID`, if any, as the call's metadata.
    private func metadata(about appUserID: String) async throws -> Metadata {
        var metadata = Metadata()
        if let token = try await userTokens?.token(for: appUserID) {
            metadata.addString(token, forKey: "entitlements-user-token")
        }
        return metadata
    }

    static func entitlementsError(_ error: any Error) -> EntitlementsError {
        let rpc = RPCError(from: error)
        let code = EntitlementsError.code(grpcStatus: rpc.code.rawValue) ?? .unknown
        if error is TransportError {
            return EntitlementsError(code: .unavailable, message: "The connection failed: \(error)")
        }
        return EntitlementsError(code: code, message: rpc.message)
    }
}
