/// The public verification entry points: signature and chain (``SignedDataVerifier/decodeVerified(_:as:)``), then the
/// identity checks of Apple's library for each kind of payload.
extension SignedDataVerifier {
    /// A signed transaction (`signedTransactionInfo`, StoreKit 2 `Transaction.jwsRepresentation`); checks `bundleId`
    /// then `environment`.
    public func verifyTransaction(_ jws: String) throws(AppStoreVerificationError) -> JWSTransaction {
        try checkedIdentity(of: try decodeVerified(jws, as: JWSTransaction.self))
    }

    /// The same checks for a transaction already split and decoded.
    public func verifyTransaction(_ data: UnverifiedSignedData<JWSTransaction>) throws(AppStoreVerificationError)
        -> JWSTransaction
    {
        try checkedIdentity(of: try decodeVerified(data))
    }

    private func checkedIdentity(of transaction: JWSTransaction) throws(AppStoreVerificationError) -> JWSTransaction {
        try checkBundleID(transaction.bundleId, in: JWSTransaction.payloadName)
        try checkEnvironment(transaction.environment?.rawValue, field: "environment", in: JWSTransaction.payloadName)
        return transaction
    }

    /// A signed renewal info (`signedRenewalInfo`); it carries no bundle ID, so only `environment` is checked.
    public func verifyRenewalInfo(_ jws: String) throws(AppStoreVerificationError) -> JWSRenewalInfo {
        let renewalInfo = try decodeVerified(jws, as: JWSRenewalInfo.self)
        try checkEnvironment(renewalInfo.environment?.rawValue, field: "environment", in: JWSRenewalInfo.payloadName)
        return renewalInfo
    }

    /// An App Store Server Notification V2 `signedPayload`. Bundle ID, `appAppleId` (Production only) and environment
    /// come from the first present of `data`, `summary`, `externalPurchaseToken` (environment Sandbox when its
    /// `externalPurchaseId` starts with `SANDBOX`, else Production) and `appData`. The nested `signedTransactionInfo`
    /// and `signedRenewalInfo` are NOT verified here: pass each to ``verifyTransaction(_:)`` / ``verifyRenewalInfo(_:)``.
    public func verifyNotification(_ jws: String) throws(AppStoreVerificationError) -> NotificationPayload {
        try checkedIdentity(of: try decodeVerified(jws, as: NotificationPayload.self))
    }

    /// The same checks for a notification already split and decoded.
    public func verifyNotification(_ data: UnverifiedSignedData<NotificationPayload>) throws(AppStoreVerificationError)
        -> NotificationPayload
    {
        try checkedIdentity(of: try decodeVerified(data))
    }

    private func checkedIdentity(of notification: NotificationPayload) throws(AppStoreVerificationError)
        -> NotificationPayload
    {
        let (bundleID, appAppleID, environment): (String?, Int64?, String?)
        let source: String
        if let data = notification.data {
            (bundleID, appAppleID, environment, source) = (data.bundleId, data.appAppleId, data.environment?.rawValue, "data")
        } else if let summary = notification.summary {
            (bundleID, appAppleID, environment, source) =
                (summary.bundleId, summary.appAppleId, summary.environment?.rawValue, "summary")
        } else if let token = notification.externalPurchaseToken {
            (bundleID, appAppleID, environment, source) =
                (token.bundleId, token.appAppleId, token.environment.rawValue, "externalPurchaseToken")
        } else if let appData = notification.appData {
            (bundleID, appAppleID, environment, source) =
                (appData.bundleId, appData.appAppleId, appData.environment?.rawValue, "appData")
        } else {
            throw AppStoreVerificationError(
                .wrongBundleID,
                "the notification has none of data, summary, externalPurchaseToken, appData, so it names no app; expected bundleId \"\(self.bundleID)\"")
        }
        let name = "notification's \(source)"
        try checkBundleID(bundleID, in: name)
        try checkAppAppleID(appAppleID, in: name)
        try checkEnvironment(environment, field: "environment", in: name)
        return notification
    }

    /// A signed app transaction (StoreKit 2 `AppTransaction.jwsRepresentation`); checks `bundleId`, `appAppleId`
    /// (Production only, as Apple's library does) and the environment, which Apple names `receiptType` here.
    public func verifyAppTransaction(_ jws: String) throws(AppStoreVerificationError) -> AppTransaction {
        let appTransaction = try decodeVerified(jws, as: AppTransaction.self)
        try checkBundleID(appTransaction.bundleId, in: AppTransaction.payloadName)
        try checkAppAppleID(appTransaction.appAppleId, in: AppTransaction.payloadName)
        try checkEnvironment(appTransaction.receiptType?.rawValue, field: "receiptType", in: AppTransaction.payloadName)
        return appTransaction
    }

    private func checkBundleID(_ received: String?, in payload: String) throws(AppStoreVerificationError) {
        guard received == bundleID else {
            throw AppStoreVerificationError(
                .wrongBundleID,
                "the \(payload) is for bundleId \(Self.quoted(received)), this verifier accepts \"\(bundleID)\"")
        }
    }

    /// Apple checks the app's Apple ID in Production only (sandbox and Xcode data may lack it).
    private func checkAppAppleID(_ received: Int64?, in payload: String) throws(AppStoreVerificationError) {
        guard environment == .production, received != appAppleID else { return }
        throw AppStoreVerificationError(
            .wrongAppAppleID,
            "the \(payload) is for appAppleId \(received.map(String.init) ?? "(missing)"), this verifier accepts "
                + "\(appAppleID.map(String.init) ?? "(none)")")
    }

    private func checkEnvironment(_ received: String?, field: String, in payload: String) throws(AppStoreVerificationError) {
        guard received == environment.rawValue else {
            throw AppStoreVerificationError(
                .wrongEnvironment,
                "the \(payload) has \(field) \(Self.quoted(received)), this verifier accepts \"\(environment.rawValue)\"")
        }
    }

    private static func quoted(_ value: String?) -> String { value.map { "\"\($0)\"" } ?? "(missing)" }
}
