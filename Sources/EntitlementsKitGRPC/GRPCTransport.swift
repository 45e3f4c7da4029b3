import EntitlementClient
public import EntitlementsKit
public import EntitlementsProto
public import HTTP2Transport
import PosixIO
import RPCCore

/// ``EntitlementsTransport`` over native gRPC (HTTP/2, TLS when configured) with the project's client: for Linux
/// apps, servers and tests. Errors come out as ``EntitlementsError``.
public struct GRPCTransport: EntitlementsTransport {
    let client: EntitlementClient

    /// - Parameters:
    ///   - publicKey: the app's public key (`pk_...`), sent as `authorization: Bearer`.
    ///   - timeout: the deadline of every unary call.
    public init(configuration: GRPCClientConfiguration, publicKey: String, timeout: Duration = .seconds(10)) throws {
        client = try EntitlementClient(configuration: configuration, apiKey: publicKey, defaultTimeout: timeout)
    }

    public func identify(appUserID: String, anonymousID: String?) async throws -> IdentifyResponse {
        try await mapped { try await client.identify(appUserID: appUserID, anonymousID: anonymousID) }
    }

    public func syncStatus(appUserID: String) async throws -> CustomerStatus {
        try await mapped { try await client.syncStatus(appUserID: appUserID).customer ?? CustomerStatus() }
    }

    public func streamStatus(appUserID: String, afterVersion: UInt64) -> AsyncThrowingStream<StatusEvent, any Error> {
        let events = client.streamStatus(appUserID: appUserID, afterVersion: afterVersion)
        return AsyncThrowingStream { continuation in
            let reader = Task {
                do {
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
        try await mapped { try await client.unary(EntitlementClient.Methods.purchase, request) }
    }

    public func restore(_ request: RestoreRequest) async throws -> RestoreResponse {
        try await mapped { try await client.unary(EntitlementClient.Methods.restore, request) }
    }

    public func setAttributes(_ request: SetAttributesRequest) async throws -> SetAttributesResponse {
        try await mapped { try await client.unary(EntitlementClient.Methods.setAttributes, request) }
    }

    public func getOfferEligibility(_ request: GetOfferEligibilityRequest) async throws -> GetOfferEligibilityResponse {
        try await mapped { try await client.unary(EntitlementClient.Methods.getOfferEligibility, request) }
    }

    public func signOffer(_ request: SignOfferRequest) async throws -> SignOfferResponse {
        try await mapped { try await client.unary(EntitlementClient.Methods.signOffer, request) }
    }

    /// Closes the connection once calls in flight have finished.
    public func close() {
        client.close()
    }

    private func mapped<Result>(_ body: () async throws -> Result) async throws -> Result {
        do { return try await body() } catch { throw Self.entitlementsError(error) }
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
