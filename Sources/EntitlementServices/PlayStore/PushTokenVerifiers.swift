public import EntitlementDomain
import GooglePlayAPI
public import OutboundHTTP
import SigningKeys
import Synchronization

/// One push-token verifier per source of Google's signing keys, shared by the tenants that name the same source (all
/// of them, in production: Google's JWKS URL), so the keys are fetched once for everyone.
public final class PushTokenVerifiers: Sendable {
    private let verifiers = Mutex<[PlayNotificationSettings.SigningKeys: PushTokenVerifier]>([:])
    private let http: OutboundHTTPClient
    private let now: @Sendable () -> UnixTime

    public init(http: OutboundHTTPClient, now: @escaping @Sendable () -> UnixTime) {
        self.http = http
        self.now = now
    }

    func verifier(for source: PlayNotificationSettings.SigningKeys) throws(DomainError) -> PushTokenVerifier {
        if let cached = verifiers.withLock({ $0[source] }) { return cached }
        let keys: PublishedKeySet
        switch source {
        case .url(let text):
            keys = try PublishedKeySet.fetching(
                url: text, setting: "play_store.notifications.jwks_url", http: http, target: .googleSigningKeys, now: now)
        case .file(let path):
            keys = try PublishedKeySet.reading(file: path, setting: "play_store.notifications.jwks_file")
        }
        let verifier = PushTokenVerifier(keys: keys)
        return verifiers.withLock { cache in
            if let raced = cache[source] { return raced }
            cache[source] = verifier
            return verifier
        }
    }
}
