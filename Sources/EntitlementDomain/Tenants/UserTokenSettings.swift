/// A tenant's `user_tokens` configuration: whether the app-facing calls must carry a token from the tenant's own
/// backend proving the app user ID they name, and how such tokens are checked.
///
///     "user_tokens": {                                  // optional; without it, mode "off"
///       "mode": "required",                            // "off", "observe" (checked, counted and logged as "would
///                                                      // refuse", never refused) or "required"
///       "issuer": "https://auth.example.com",          // the `iss` every token must carry
///       "max_lifetime_seconds": 3600,                  // optional, default 3600, at most 86400: `exp - iat`, and
///                                                      // `exp` from now, may not exceed it
///       "hs256_secrets": ["…at least 32 bytes…"],      // HS256 secrets, several while one is rotated out; and/or
///       "jwks_file": "user-token-keys.json",           // the backend's ES256/RS256 public keys (a JWKS), or
///       "jwks_url": "https://auth.example.com/jwks",   // fetched, cached, fetched again for an unknown `kid`
///       "allow_anonymous": true                        // optional, default true: anonymous IDs ($anon:…) need no token
///     }
///
/// A token is a JWT: `sub` the app user ID, `aud` the tenant ID, `iss` the issuer, `exp`, `iat`, optionally `nbf`
/// and `jti`. The server never holds the private key of the asymmetric modes.
public struct UserTokenSettings: Sendable, Hashable {
    public enum Mode: String, Sendable, Hashable, CaseIterable {
        case off, observe, required
    }

    public var mode: Mode
    public var issuer: String
    public var maxLifetimeSeconds: Int64
    /// HS256 secrets (their UTF-8 bytes); empty when the tenant signs asymmetrically only.
    public var hs256Secrets: [[UInt8]]
    /// Where the public keys of ES256 and RS256 tokens come from.
    public var keySource: SigningKeySource?
    public var allowsAnonymous: Bool

    public static let defaultMaxLifetimeSeconds: Int64 = 3_600
    public static let maximumLifetimeSeconds: Int64 = 86_400
    /// HS256's key should be at least as long as its output (RFC 7518 §3.2).
    public static let minimumSecretBytes = 32
    public static let maximumSecrets = 5

    public static let off = UserTokenSettings(
        mode: .off, issuer: "", maxLifetimeSeconds: defaultMaxLifetimeSeconds, hs256Secrets: [], keySource: nil,
        allowsAnonymous: true)

    public init(
        mode: Mode, issuer: String, maxLifetimeSeconds: Int64, hs256Secrets: [[UInt8]], keySource: SigningKeySource?,
        allowsAnonymous: Bool
    ) {
        self.mode = mode
        self.issuer = issuer
        self.maxLifetimeSeconds = maxLifetimeSeconds
        self.hs256Secrets = hs256Secrets
        self.keySource = keySource
        self.allowsAnonymous = allowsAnonymous
    }

    // MARK: Rules (errors are relative to the checked value, as for the other settings)

    /// These settings checked as a configured `user_tokens` would be (a JWKS file's path resolved against
    /// `directory`). Error paths are relative to `user_tokens`.
    package func validated(directory: String) throws(TenantRuleError) -> UserTokenSettings {
        guard mode != .off || !issuer.isEmpty else { return self }
        var settings = self
        try TenantRuleError.at(".issuer") { () throws(TenantRuleError) in try Self.checkIssuer(issuer) }
        try TenantRuleError.at(".max_lifetime_seconds") { () throws(TenantRuleError) in
            try Self.checkMaxLifetime(maxLifetimeSeconds)
        }
        if !hs256Secrets.isEmpty {
            try TenantRuleError.at(".hs256_secrets") { () throws(TenantRuleError) in
                try Self.checkSecretCount(hs256Secrets.count)
            }
            for (index, secret) in hs256Secrets.enumerated() {
                try TenantRuleError.at(".hs256_secrets[\(index)]") { () throws(TenantRuleError) in
                    try Self.checkSecret(String(decoding: secret, as: UTF8.self))
                }
            }
        }
        settings.keySource = try keySource?.validated(directory: directory)
        try Self.checkHasKeys(mode: mode, secrets: hs256Secrets.count, keySource: keySource)
        return settings
    }

    package static func checkIssuer(_ issuer: String) throws(TenantRuleError) {
        guard !issuer.isEmpty, issuer.utf8.count <= 512 else {
            throw TenantRuleError(.invalidValue, "the issuer must be 1 to 512 bytes (the tokens' `iss`)")
        }
    }

    package static func checkMaxLifetime(_ seconds: Int64) throws(TenantRuleError) {
        guard (1...maximumLifetimeSeconds).contains(seconds) else {
            throw TenantRuleError(.invalidValue, "max_lifetime_seconds must be 1 to \(maximumLifetimeSeconds)")
        }
    }

    package static func checkSecret(_ secret: String) throws(TenantRuleError) {
        guard secret.utf8.count >= minimumSecretBytes, secret.utf8.count <= 512 else {
            throw TenantRuleError(
                .invalidValue, "an HS256 secret must be \(minimumSecretBytes) to 512 bytes (RFC 7518 §3.2: at least the "
                    + "hash's 32)")
        }
    }

    package static func checkSecretCount(_ count: Int) throws(TenantRuleError) {
        guard (1...maximumSecrets).contains(count) else {
            throw TenantRuleError(.invalidValue, "hs256_secrets lists 1 to \(maximumSecrets) secrets")
        }
    }

    /// A mode other than `off` needs a way to check tokens.
    package static func checkHasKeys(mode: Mode, secrets: Int, keySource: SigningKeySource?) throws(TenantRuleError) {
        guard mode == .off || secrets > 0 || keySource != nil else {
            throw TenantRuleError(
                .invalidValue, "mode \"\(mode.rawValue)\" needs hs256_secrets, jwks_file or jwks_url to check tokens with")
        }
    }
}
