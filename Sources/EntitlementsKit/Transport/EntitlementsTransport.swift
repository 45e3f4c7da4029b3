public import EntitlementsProto

/// How the SDK reaches the server: each implementation sends the app's public key as `authorization`, applies its
/// deadlines, and ends a stream when the consuming task is cancelled. Native gRPC over HTTP/2 is
/// `EntitlementsKitGRPC.GRPCTransport`; gRPC-Web over `URLSession` follows.
public protocol EntitlementsTransport: Sendable {
    func identify(appUserID: String, anonymousID: String?) async throws -> IdentifyResponse
    func syncStatus(appUserID: String) async throws -> CustomerStatus
    /// `StreamStatus`: a snapshot (or the events after `afterVersion`), then one event per change, until the server
    /// ends it or the connection drops.
    func streamStatus(appUserID: String, afterVersion: UInt64) -> AsyncThrowingStream<StatusEvent, any Error>
    func purchase(_ request: PurchaseRequest) async throws -> PurchaseResponse
    func restore(_ request: RestoreRequest) async throws -> RestoreResponse
    func setAttributes(_ request: SetAttributesRequest) async throws -> SetAttributesResponse
    func getOfferEligibility(_ request: GetOfferEligibilityRequest) async throws -> GetOfferEligibilityResponse
    func signOffer(_ request: SignOfferRequest) async throws -> SignOfferResponse
    /// Where the user token every call carries comes from, for a tenant that requires them; nil: none is sent.
    var userTokens: UserTokenProvider? { get }
}

extension EntitlementsTransport {
    public var userTokens: UserTokenProvider? { nil }
}
