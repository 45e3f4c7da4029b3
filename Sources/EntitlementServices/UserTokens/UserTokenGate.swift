import BoundedText
public import EntitlementDomain
import FileAccess
import JOSE
import RPCCore
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
    /// Each tenant's verifier with the settings it was made for; a reload with other settings makes a new one.
    private let verifiers = Mutex<[String: (settings: UserTokenSettings, verifier: UserTokenVerifier)]>([:])

    public init(now: @escaping @Sendable () -> UnixTime) {
        self.now = now
    }

    /// ``verdict(_:_:appUserID:)``, written into the call's log fields.
    @discardableResult
    func check(_ caller: Caller, _ context: ServerContext, appUserID: String, _ fields: inout CallLog.Fields)
        throws(DomainError) -> Verdict
    {
        do {
            let verdict = try verdict(caller, context, appUserID: appUserID)
            switch verdict {
            case .notNeeded: break
            case .accepted: fields.userToken = "accepted"
            case .wouldRefuse(let refusal): fields.userToken = "would_refuse:" + refusal.reason.rawValue
            }
            return verdict
        } catch {
            fields.userToken = "refused"
            throw error
        }
    }

    /// Checks the token of a call by `caller` naming `appUserID`; `UNAUTHENTICATED` naming the failed check when the
    /// tenant requires tokens and this one does not prove the ID.
    func verdict(_ caller: Caller, _ context: ServerContext, appUserID: String) throws(DomainError) -> Verdict {
        let settings = caller.tenant.userTokens
        guard settings.mode != .off, caller.key.kind == .publicKey else { return .notNeeded }
        if settings.allowsAnonymous, AppUserID.isAnonymous(appUserID) { return .notNeeded }
        let outcome: Result<Int64, UserTokenRefusal>
        if let token = context.metadata[string: Self.metadataKey], !token.isEmpty {
            outcome = try verifier(for: caller.tenant).verify(
                token, appUserID: appUserID, nowSeconds: now().milliseconds / 1000)
        } else {
            outcome = .failure(UserTokenRefusal(.missing, "the call carries no \(Self.metadataKey) metadata"))
        }
        switch (outcome, settings.mode) {
        case (.success(let expiresAt), _): return .accepted(expiresAt: expiresAt)
        case (.failure(let refusal), .observe): return .wouldRefuse(refusal)
        case (.failure(let refusal), _):
            throw .unauthenticated("user token refused (\(refusal.reason.rawValue)): \(refusal.message)")
        }
    }

    private func verifier(for tenant: Tenant) throws(DomainError) -> UserTokenVerifier {
        let settings = tenant.userTokens
        if let made = verifiers.withLock({ $0[tenant.id] }), made.settings == settings { return made.verifier }
        var keySet: JSONWebKeySet?
        switch settings.keySource {
        case nil: break
        case .file(let path):
            switch FileSystem.readFile(path) {
            case .failure(let error): throw .tenantMisconfigured("Cannot read user_tokens.jwks_file: \(error)")
            case .success(let bytes):
                do throws(JOSEError) {
                    keySet = try JSONWebKeySet(json: bytes)
                } catch {
                    throw .tenantMisconfigured(
                        "user_tokens.jwks_file \(path.quotedForMessage) is not a JWKS: \(error.message)")
                }
            }
        case .url:
            throw .tenantMisconfigured("user_tokens.jwks_url is not read yet: use jwks_file or hs256_secrets")
        }
        let verifier = UserTokenVerifier(tenantID: tenant.id, settings: settings, keySet: keySet)
        verifiers.withLock { $0[tenant.id] = (settings, verifier) }
        return verifier
    }
}
