public import Crypto
import Encodings
import JOSE
import Synchronization

/// The In-App Purchase key a tenant downloaded from App Store Connect, and what its tokens say.
public struct AppStoreAPICredentials: Sendable {
    public let privateKey: P256.PrivateKey
    public let keyID: String
    public let issuerID: String
    public let bundleID: String

    /// `pem`: the `.p8` file's text (PKCS#8, P-256), as App Store Connect gives it.
    public init(p8 pem: String, keyID: String, issuerID: String, bundleID: String) throws(AppStoreServerAPIError) {
        do throws(CryptoError) {
            privateKey = try P256.PrivateKey(pemRepresentation: pem)
        } catch {
            throw AppStoreServerAPIError(.configuration, "the In-App Purchase key is not a P-256 private key in PEM (.p8): \(error)")
        }
        self.keyID = keyID
        self.issuerID = issuerID
        self.bundleID = bundleID
    }
}

/// The bearer tokens of the App Store Server API: an ES256 JWT (`alg` ES256, `kid`, `typ` JWT; `iss`, `iat`, `exp`,
/// `aud` appstoreconnect-v1, `bid`) valid for ``lifetimeSeconds`` (Apple refuses more than an hour), signed with
/// OpenSSL and reused by every call until ``refreshMarginSeconds`` before it expires.
public final class AppStoreAPITokens: Sendable {
    public static let audience = "appstoreconnect-v1"
    static let lifetimeSeconds: Int64 = 50 * 60
    static let refreshMarginSeconds: Int64 = 5 * 60

    private struct Token {
        var text: String
        var expiresAt: Int64
    }

    let credentials: AppStoreAPICredentials
    private let current = Mutex<Token?>(nil)

    public init(credentials: AppStoreAPICredentials) {
        self.credentials = credentials
    }

    /// A token valid for at least five more minutes at `now` (Unix seconds).
    public func token(now: Int64) throws(AppStoreServerAPIError) -> String {
        if let reusable = current.withLock({ $0 }), reusable.expiresAt - Self.refreshMarginSeconds > now {
            return reusable.text
        }
        let made = try make(issuedAt: now)
        current.withLock { $0 = made }
        return made.text
    }

    private func make(issuedAt now: Int64) throws(AppStoreServerAPIError) -> Token {
        let expiresAt = now + Self.lifetimeSeconds
        let header: JSONValue = .object([
            ("alg", .string("ES256")), ("kid", .string(credentials.keyID)), ("typ", .string("JWT")),
        ])
        let claims: JSONValue = .object([
            ("iss", .string(credentials.issuerID)), ("iat", .number(String(now))), ("exp", .number(String(expiresAt))),
            ("aud", .string(Self.audience)), ("bid", .string(credentials.bundleID)),
        ])
        do throws(CryptoError) {
            let text = try JWSSigning.sign(
                headerJSON: Array(header.text.utf8), payload: Array(claims.text.utf8), key: credentials.privateKey)
            return Token(text: text, expiresAt: expiresAt)
        } catch {
            throw AppStoreServerAPIError(.configuration, "cannot sign an App Store Server API token: \(error)")
        }
    }
}
