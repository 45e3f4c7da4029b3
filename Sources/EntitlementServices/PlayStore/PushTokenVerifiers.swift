public import EntitlementDomain
import GooglePlayAPI
public import OutboundHTTP
import SigningKeys
import Synchronization

/// One push-token verifier per source of Google's signing keys, shared by the tenants that name the same source. A
/// URL's (all tenants', in production: Google's JWKS URL) lives as long as the server, so its keys are fetched once
/// for everyone; a file's is read again after every reload of the tenants file, which may hold other keys at the same
/// path.
public final class PushTokenVerifiers: Sendable {
    private let fetched = Mutex<[String: PushTokenVerifier]>([:])
    private let read: MadeUntilReload<String, PushTokenVerifier>
    private let http: OutboundHTTPClient
    private let now: @Sendable () -> UnixTime

    public init(tenants: TenantRegistry, http: OutboundHTTPClient, now: @escaping @Sendable () -> UnixTime) {
        read = MadeUntilReload(tenants: tenants)
        self.http = http
        self.now = now
    }

    func verifier(for source: PlayNotificationSettings.SigningKeys) throws(DomainError) -> PushTokenVerifier {
        switch source {
        case .url(let text):
            if let cached = fetched.withLock({ $0[text] }) { return cached }
            let made = PushTokenVerifier(keys: try PublishedKeySet.fetching(
                url: text, setting: "play_store.notifications.jwks_url", http: http, target: .googleSigningKeys, now: now))
            return fetched.withLock { cache in
                if let raced = cache[text] { return raced }
                cache[text] = made
                return made
            }
        case .file(let path):
            return try read.value(for: path) { () throws(DomainError) in
                PushTokenVerifier(keys: try PublishedKeySet.reading(file: path, setting: "play_store.notifications.jwks_file"))
            }
        }
    }
}
