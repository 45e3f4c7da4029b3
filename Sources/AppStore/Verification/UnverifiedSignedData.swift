import JOSE

/// App Store signed data split and its payload decoded, nothing verified yet: what a caller reads to pick the
/// verifier (the environment the payload claims) without splitting and decoding the token a second time when it is
/// verified (`SignedDataVerifier.verifyTransaction` and `verifyNotification` take it as well as the token).
public struct UnverifiedSignedData<Payload: SignedPayload>: Sendable {
    let jws: CompactJWS
    let payload: Payload

    public init(_ token: String) throws(AppStoreVerificationError) {
        jws = try CompactJWS(appStoreToken: token)
        payload = try Payload(jsonPayload: jws.payload)
    }

    /// The environment the payload claims: unsigned until verified, so it may only pick a verifier.
    public var claimedEnvironment: String? { payload.claimedEnvironment }
}
