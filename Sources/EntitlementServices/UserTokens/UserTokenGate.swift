public import EntitlementDomain
import Metrics
public import OutboundHTTP
import RPCCore
import SigningKeys
import Synchronization

/// Where the app-facing calls' user tokens are checked: a call with a public key that names an app user must carry a
/// token proving that ID when its tenant's `user_tokens.mode` asks for one (``UserTokenSettings``). Secret keys are
/// the tenant's backend, which may act for any user, and need none.
///
/// The token travels as the metadata ``metadataKey`` (a header: the same for gRPC, gRPC-Web and Connect), never in a
/// message, so no log or stored request can hold it.
public final class UserTokenGate: Sendable {
    public static let metadataKey = "entitlements-user-token"

    /// What the gate decided for one call.
    enum Verdict: Equatable {
        /// No token needed (mode off, a secret key, an anonymous ID the tenant lets through).
        case notNeeded
        /// The token proves the ID until `expiresAt` (seconds since the epoch).
        case accepted(expiresAt: Int64)
        /// Mode `observe`: the call goes on; the refusal is counted and logged.
        case wouldRefuse(UserTokenRefusal)
    }

    private let now: @Sendable () -> UnixTime
    /// Where an anonymous ID's customer is found: one merged into an identified customer is that customer's.
    private let customers: Customers
    /// For tenants whose keys are at a `jwks_url`; nil: such tenants are misconfigured here.
    private let http: OutboundHTTPClient?
    /// Each tenant's verifier with the settings and tenants' generation it was made for: any reload makes a new one,
    /// since a `jwks_file` may hold other keys under the same path.
    private let verifiers = Mutex<[String: (settings: UserTokenSettings, generation: UInt64, verifier: UserTokenVerifier)]>(
        [:])
    private let tenants: TenantRegistry

    private let counts: LabeledCounter

    public init(
        customers: Customers, tenants: TenantRegistry, http: OutboundHTTPClient?, metrics: ServiceMetrics,
        now: @escaping @Sendable () -> UnixTime
    ) {
        self.customers = customers
        self.tenants = tenants
        counts = metrics.userTokens
        self.http = http
        self.now = now
    }

    /// ``verdictNow(_:_:appUserID:)``, written into the call's log fields; nil when the tenant's keys must be fetched
    /// first (``check(_:_:appUserID:_:)`` waits for them).
    func checkNow(_ caller: Caller, _ context: ServerContext, appUserID: String, _ fields: inout CallLog.Fields)
        throws(DomainError) -> Verdict?
    {
        guard let outcome = try verdictNow(caller, context, appUserID: appUserID) else { return nil }
        return try decide(outcome, caller, &fields)
    }

    /// The verdict on the call's user token, written into its log fields: `UNAUTHENTICATED` naming the failed check
    /// when the tenant requires tokens and this one does not prove `appUserID`.
    @discardableResult
    func check(_ caller: Caller, _ context: ServerContext, appUserID: String, _ fields: inout CallLog.Fields)
        async throws(DomainError) -> Verdict
    {
        if let outcome = try verdictNow(caller, context, appUserID: appUserID) { return try decide(outcome, caller, &fields) }
        var provenID = appUserID
        if AppUserID.isAnonymous(appUserID) {
            // Not cached: read, and an anonymous ID merged into an identified customer needs that customer's token.
            let canonical = try await customers.state(tenantID: caller.tenant.id, appUserID: appUserID).appUserID
            if waivesToken(caller.tenant, for: canonical) { return .notNeeded }
            provenID = canonical
        }
        let token = context.metadata[string: Self.metadataKey] ?? ""
        let result: Result<Int64, UserTokenRefusal>
        if token.isEmpty {
            result = .failure(Self.missing)
        } else {
            switch verifierOrRefusal(for: caller.tenant) {
            case .success(let verifier): result = await verifier.verify(token, appUserID: provenID, nowSeconds: nowSeconds)
            case .failure(let refusal): result = .failure(refusal)
            }
        }
        return try decide(.checked(result), caller, &fields)
    }

    /// What checking the token said, before the tenant's mode decides.
    private enum Outcome {
        case notNeeded
        case checked(Result<Int64, UserTokenRefusal>)
    }

    static let missing = UserTokenRefusal(.missing, "the call carries no \(metadataKey) metadata")

    /// Whether the tenant lets this (canonical) ID go without a token: an anonymous one, when the tenant allows them.
    /// An anonymous ID merged into an identified customer is that customer, whose token it needs in any case.
    private func waivesToken(_ tenant: Tenant, for appUserID: String) -> Bool {
        tenant.userTokens.allowsAnonymous && AppUserID.isAnonymous(appUserID)
    }

    /// nil when the answer needs a wait: the token names a key that must be fetched, or an anonymous ID's customer is
    /// not cached.
    private func verdictNow(_ caller: Caller, _ context: ServerContext, appUserID: String) throws(DomainError) -> Outcome? {
        let settings = caller.tenant.userTokens
        guard settings.mode != .off, caller.key.kind == .publicKey else { return .notNeeded }
        var provenID = appUserID
        if AppUserID.isAnonymous(appUserID) {
            guard let cached = customers.cachedState(tenantID: caller.tenant.id, appUserID: appUserID) else { return nil }
            if waivesToken(caller.tenant, for: cached.state.appUserID) { return .notNeeded }
            provenID = cached.state.appUserID
        }
        guard let token = context.metadata[string: Self.metadataKey], !token.isEmpty else {
            return .checked(.failure(Self.missing))
        }
        switch verifierOrRefusal(for: caller.tenant) {
        case .success(let verifier): return verifier.verifyNow(token, appUserID: provenID, nowSeconds: nowSeconds).map { .checked($0) }
        case .failure(let refusal): return .checked(.failure(refusal))
        }
    }

    /// The tenant's mode applied to `outcome`, and the call's log fields told.
    private func decide(_ outcome: Outcome, _ caller: Caller, _ fields: inout CallLog.Fields) throws(DomainError) -> Verdict {
        guard case .checked(let result) = outcome else { return .notNeeded }
        let tenantID = caller.tenant.id
        switch (result, caller.tenant.userTokens.mode) {
        case (.success(let expiresAt), _):
            fields.userToken = "accepted"
            counts.increment(tenantID, "accepted", "")
            return .accepted(expiresAt: expiresAt)
        case (.failure(let refusal), .observe):
            fields.userToken = "would_refuse:" + refusal.reason.rawValue
            counts.increment(tenantID, "would_refuse", refusal.reason.rawValue)
            return .wouldRefuse(refusal)
        case (.failure(let refusal), _):
            fields.userToken = "refused:" + refusal.reason.rawValue
            counts.increment(tenantID, "refused", refusal.reason.rawValue)
            // Keys that cannot be had now are the server's trouble, not the token's: a client retries later with the
            // same token rather than asking its backend for another.
            if refusal.reason == .keysUnavailable {
                throw .storeUnavailable("the tenant's user-token keys cannot be had now: \(refusal.message)")
            }
            throw .unauthenticated("user token refused (\(refusal.reason.rawValue)): \(refusal.message)")
        }
    }

    private var nowSeconds: Int64 { now().milliseconds / 1000 }

    /// The tenant's verifier, or a keys_unavailable refusal when it cannot be made (its keys are at a URL and this
    /// server has no outbound client): the mode decides, so an observing tenant's calls still go through.
    private func verifierOrRefusal(for tenant: Tenant) -> Result<UserTokenVerifier, UserTokenRefusal> {
        do throws(DomainError) {
            return .success(try verifier(for: tenant))
        } catch {
            return .failure(UserTokenRefusal(.keysUnavailable, error.message))
        }
    }

    private func verifier(for tenant: Tenant) throws(DomainError) -> UserTokenVerifier {
        let settings = tenant.userTokens
        let generation = tenants.generation
        if let made = verifiers.withLock({ $0[tenant.id] }), made.generation == generation, made.settings == settings {
            return made.verifier
        }
        var keys: PublishedKeySet?
        switch settings.keySource {
        case nil: break
        case .file(let path):
            keys = try PublishedKeySet.reading(file: path, setting: "user_tokens.jwks_file")
        case .url(let text):
            guard let http else {
                throw .tenantMisconfigured("user_tokens.jwks_url needs outbound HTTP, which this server is not given.")
            }
            keys = try PublishedKeySet.fetching(
                url: text, setting: "user_tokens.jwks_url", http: http, target: .userTokenKeys, now: now)
        }
        let verifier = UserTokenVerifier(tenantID: tenant.id, settings: settings, keys: keys)
        verifiers.withLock { $0[tenant.id] = (settings, generation, verifier) }
        return verifier
    }
}
