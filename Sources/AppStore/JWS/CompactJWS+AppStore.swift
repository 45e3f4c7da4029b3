public import JOSE

extension CompactJWS {
    /// Splits App Store signed data: JOSE's parse failure becomes ``AppStoreVerificationError/Code/malformedToken``
    /// with JOSE's message, so App Store callers handle one error type.
    public init(appStoreToken token: some StringProtocol) throws(AppStoreVerificationError) {
        do {
            self = try CompactJWS(token)
        } catch {
            throw AppStoreVerificationError(.malformedToken, error.message)
        }
    }
}
