import BoundedText
import EntitlementDomain
import FileAccess
import JOSE
import OutboundHTTP
import SigningKeys

/// A tenant's configured signing keys (Google's push-token keys, a backend's user-token keys): a JWKS file read once,
/// or a URL fetched as needed. `setting` names the tenants file's field in errors.
extension PublishedKeySet {
    static func reading(file path: String, setting: String) throws(DomainError) -> PublishedKeySet {
        switch FileSystem.readFile(path) {
        case .failure(let error): throw .tenantMisconfigured("Cannot read \(setting) \(path.quotedForMessage): \(error)")
        case .success(let bytes):
            do throws(JOSEError) {
                return PublishedKeySet(fixed: try JSONWebKeySet(json: bytes))
            } catch {
                throw .tenantMisconfigured("\(setting) \(path.quotedForMessage) is not a JWKS: \(error.message)")
            }
        }
    }

    static func fetching(
        url text: String, setting: String, http: OutboundHTTPClient, target: OutboundTarget,
        now: @escaping @Sendable () -> UnixTime
    ) throws(DomainError) -> PublishedKeySet {
        guard let url = OutboundURL(text) else {
            throw .tenantMisconfigured("\(setting) \(text.quotedForMessage) is not a URL.")
        }
        return PublishedKeySet(url: url, http: http, target: target) { now().milliseconds }
    }
}
