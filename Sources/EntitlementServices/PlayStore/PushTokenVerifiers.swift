import BoundedText
public import EntitlementDomain
import FileAccess
import GooglePlayAPI
import JOSE
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
            guard let url = OutboundURL(text) else {
                throw .tenantMisconfigured("The notifications' jwks_url \(text.quotedForMessage) is not a URL.")
            }
            let clock = now
            keys = PublishedKeySet(url: url, http: http, target: .googleSigningKeys) { clock().milliseconds }
        case .file(let path):
            switch FileSystem.readFile(path) {
            case .failure(let error): throw .tenantMisconfigured("Cannot read the notifications' jwks_file: \(error)")
            case .success(let bytes):
                do throws(JOSEError) {
                    keys = PublishedKeySet(fixed: try JSONWebKeySet(json: bytes))
                } catch {
                    throw .tenantMisconfigured("The notifications' jwks_file \(path.quotedForMessage) is not a JWKS: \(error.message)")
                }
            }
        }
        let verifier = PushTokenVerifier(keys: keys)
        return verifiers.withLock { cache in
            if let raced = cache[source] { return raced }
            cache[source] = verifier
            return verifier
        }
    }
}
