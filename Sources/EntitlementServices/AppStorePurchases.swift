import AppStore
import AppStoreServerAPI
import EntitlementDomain

/// Turns App Store signed transactions into verified purchases for a tenant.
///
/// One verifier per tenant and environment, built from the tenant's settings and kept until the tenants file is
/// reloaded (their chain caches then stay warm across calls).
public final class AppStorePurchases: Sendable {
    private struct Key: Hashable {
        var tenantID: String
        var environment: AppStoreEnvironmentName
    }

    private let verifiers: MadeUntilReload<Key, SignedDataVerifier>

    public init(tenants: TenantRegistry) {
        verifiers = MadeUntilReload(tenants: tenants)
    }

    /// Verifies `token` for `tenant` and maps it to a purchase owned by nobody yet.
    func record(from token: String, tenant: Tenant) throws(DomainError) -> StorePurchase {
        let settings = try Self.settings(of: tenant)
        return try AppStoreInterpretation.purchase(
            from: try verifiedTransaction(token, tenant: tenant, settings: settings), tenant: tenant, settings: settings)
    }

    /// `token`'s payload once verified with the verifier of the environment it claims.
    func verifiedTransaction(_ token: String, tenant: Tenant, settings: AppStoreSettings) throws(DomainError)
        -> JWSTransaction
    {
        let (data, claimed) = try Self.unverified(token, as: JWSTransaction.self)
        let verifier = try verifier(for: tenant, settings: settings, claimed: claimed)
        do throws(AppStoreVerificationError) {
            return try verifier.verifyTransaction(data)
        } catch {
            throw Self.domainError(error)
        }
    }

    /// Looks `transactionID` up with Apple's App Store Server API (Get Transaction Info, production then sandbox as the
    /// tenant accepts them) and verifies what comes back exactly as a device's signed transaction.
    func record(fromTransactionID transactionID: String, tenant: Tenant, apis: AppStoreServerAPIs) async throws(DomainError)
        -> StorePurchase
    {
        let settings = try Self.settings(of: tenant)
        let (client, environments) = try apis.client(for: tenant, settings: settings, use: .purchaseByTransactionID)
        let (signed, environment) = try await Self.asking { () async throws(AppStoreServerAPIError) in
            try await client.transactionInfo(transactionID, in: environments)
        }
        let record = try record(from: signed, tenant: tenant)
        guard AppStoreInterpretation.isSubscription(record, settings: settings) else { return record }
        // A subscription's renewal state (auto-renew, grace, billing retry, a pending product) is only in its
        // renewal info: ask for it, with the subscription's newest transaction.
        let statuses = try await Self.asking { () async throws(AppStoreServerAPIError) in
            try await client.subscriptionStatuses(transactionID, in: environment)
        }
        guard let current = statuses.first(where: { $0.originalTransactionId == record.originalTransactionID }) else {
            return record
        }
        return try subscription(current, tenant: tenant, settings: settings)
    }

    /// A call to Apple, its failure as the caller sees it.
    static func asking<Value>(_ call: () async throws(AppStoreServerAPIError) -> Value) async throws(DomainError)
        -> Value
    {
        do throws(AppStoreServerAPIError) {
            return try await call()
        } catch {
            throw DomainError(error)
        }
    }

    /// A subscription as Get All Subscription Statuses shows it, both of its signed parts verified.
    func subscription(
        _ status: AppStoreSubscriptionStatus, tenant: Tenant, settings: AppStoreSettings, unmappedGrantsNothing: Bool = false
    ) throws(DomainError) -> StorePurchase {
        let (data, claimed) = try Self.unverified(status.signedTransactionInfo, as: JWSTransaction.self)
        let verifier = try verifier(for: tenant, settings: settings, claimed: claimed)
        let transaction: JWSTransaction
        let renewal: JWSRenewalInfo?
        do throws(AppStoreVerificationError) {
            transaction = try verifier.verifyTransaction(data)
            renewal = try status.signedRenewalInfo.map { signed throws(AppStoreVerificationError) in
                try verifier.verifyRenewalInfo(signed)
            }
        } catch {
            throw Self.domainError(error)
        }
        guard transaction.originalTransactionId == status.originalTransactionId,
            renewal.map({ $0.originalTransactionId == status.originalTransactionId }) ?? true
        else {
            throw .storeUnavailable("Apple's subscription status names original transaction \(status.originalTransactionId) but its signed data another.")
        }
        return try AppStoreInterpretation.purchase(
            from: transaction, renewal: renewal, subscriptionStatus: status.status, tenant: tenant, settings: settings,
            unmappedGrantsNothing: unmappedGrantsNothing)
    }

    static func settings(of tenant: Tenant) throws(DomainError) -> AppStoreSettings {
        guard let settings = tenant.appStore else {
            throw .tenantMisconfigured("Tenant '\(tenant.id)' does not accept App Store purchases (no \"app_store\" settings).")
        }
        return settings
    }

    /// The verifier for the environment a token claims. The claim only picks it: for an environment the tenant does
    /// not accept, a signed environment's verifier still checks the signature first (as Apple's library does), so
    /// a forged token is reported as forged, and a genuine one as being from the wrong environment.
    func verifier(for tenant: Tenant, settings: AppStoreSettings, claimed environment: String) throws(DomainError)
        -> SignedDataVerifier
    {
        if let claimed = AppStoreEnvironmentName(rawValue: environment), settings.environments.contains(claimed) {
            return try verifier(for: tenant, settings: settings, environment: claimed)
        }
        guard let signed = settings.environments.filter({ !$0.isLocal }).sorted(by: { $0.rawValue < $1.rawValue }).first
        else {
            let names = settings.environments.map(\.rawValue).sorted().joined(separator: ", ")
            throw .tenantMisconfigured("The data is from the \(environment) environment; this app accepts \(names).")
        }
        return try verifier(for: tenant, settings: settings, environment: signed)
    }

    private func verifier(for tenant: Tenant, settings: AppStoreSettings, environment: AppStoreEnvironmentName)
        throws(DomainError) -> SignedDataVerifier
    {
        try verifiers.value(for: Key(tenantID: tenant.id, environment: environment)) { () throws(DomainError) in
            do throws(AppStoreVerificationError) {
                return try SignedDataVerifier(
                    trustedRoots: settings.trustedRoots.map(\.certificate), bundleID: settings.bundleID,
                    appAppleID: settings.appAppleID,
                    environment: AppStoreEnvironment(rawValue: environment.rawValue) ?? .production)
            } catch {
                throw .tenantMisconfigured("App Store settings of tenant '\(tenant.id)': \(error.message)")
            }
        }
    }

    /// `token` split and decoded (for the verifier, which then needs not do it again) and the environment its
    /// payload claims, read before verification only to pick the verifier; the verifier then checks it (an unsigned
    /// claim decides nothing).
    static func unverified<Payload: SignedPayload>(_ token: String, as _: Payload.Type) throws(DomainError)
        -> (data: UnverifiedSignedData<Payload>, claimed: String)
    {
        let data: UnverifiedSignedData<Payload>
        do throws(AppStoreVerificationError) {
            data = try UnverifiedSignedData(token)
        } catch {
            throw .malformedPayload("The token is not a signed App Store \(Payload.payloadName): \(error.message)")
        }
        guard let claimed = data.claimedEnvironment, !claimed.isEmpty else {
            throw .malformedPayload("The signed \(Payload.payloadName) has no environment; App Store data always carries one.")
        }
        return (data, claimed)
    }

    /// Verification failures as the caller sees them: the environment and Xcode cases are the app's setup, the rest
    /// is bad input.
    static func domainError(_ error: AppStoreVerificationError, subject: String = "signed transaction") -> DomainError {
        switch error.code {
        case .xcodeSigned, .wrongEnvironment, .invalidConfiguration:
            .tenantMisconfigured(error.message)
        default:
            .verificationFailed("The \(subject) failed verification (\(error.code.rawValue)): \(error.message)")
        }
    }
}
