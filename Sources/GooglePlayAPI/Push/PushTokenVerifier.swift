import BoundedText
import Encodings
import JOSE
public import SigningKeys
import Crypto

/// What a Pub/Sub push's `Authorization: Bearer` token must say, per tenant.
public struct PushTokenExpectations: Sendable, Hashable {
    /// The `aud` claim: the audience configured on the push subscription (by default its endpoint URL).
    public var audience: String
    /// The `email` claim: the service account the push subscription authenticates as.
    public var serviceAccountEmail: String

    public init(audience: String, serviceAccountEmail: String) {
        self.audience = audience
        self.serviceAccountEmail = serviceAccountEmail
    }
}

/// Why a push token was refused; the message names the failed check and never holds the token.
public struct PushTokenError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case missing
        case malformed
        case unknownKey
        case badSignature
        case wrongIssuer
        case wrongAudience
        case expired
        case notYetValid
        case wrongEmail
        case emailNotVerified
        /// Google's keys could not be fetched: not the pusher's fault; Pub/Sub should retry.
        case keysUnavailable
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
    public static func == (lhs: PushTokenError, rhs: PushTokenError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

/// Checks the OIDC token Pub/Sub attaches to a push: RS256 by one of Google's keys, then the claims Google's own
/// libraries check (`iss`, `aud`, `exp`, `iat`), then the ones that make it this subscription's (`email`,
/// `email_verified`).
public struct PushTokenVerifier: Sendable {
    public static let issuers: Set<String> = ["https://accounts.google.com", "accounts.google.com"]
    /// Clock skew allowed on `exp` and `iat`, in seconds (google-auth allows 10 by default; Pub/Sub's clocks are good).
    public static let leewaySeconds: Int64 = 30
    public static let maxTokenBytes = 8 * 1024

    let keys: PublishedKeySet

    public init(keys: PublishedKeySet) {
        self.keys = keys
    }

    /// The `Authorization` header value; `now` in milliseconds since 1970.
    public func verify(authorization: String?, expecting expected: PushTokenExpectations, now: Int64) async
        -> Result<Void, PushTokenError>
    {
        guard let authorization, !authorization.isEmpty else {
            return .failure(PushTokenError(.missing, "the push has no Authorization header; enable authentication on the push subscription"))
        }
        guard authorization.utf8.count <= Self.maxTokenBytes else {
            return .failure(PushTokenError(.malformed, "the Authorization header is larger than \(Self.maxTokenBytes) bytes"))
        }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            return .failure(PushTokenError(.malformed, "the Authorization header is not `Bearer <token>`"))
        }
        let jws: CompactJWS
        do {
            jws = try CompactJWS(parts[1])
        } catch {
            return .failure(PushTokenError(.malformed, "the bearer token is not a JWT: \(error.message)"))
        }
        guard jws.header.alg == "RS256" else {
            return .failure(PushTokenError(.malformed, "the token's alg is \((jws.header.alg ?? "missing").quotedForMessage), not RS256"))
        }
        guard let kid = jws.header.kid, !kid.isEmpty else {
            return .failure(PushTokenError(.malformed, "the token's header has no kid"))
        }
        let key: RSA.PublicKey
        switch await keys.key(id: kid) {
        case .success(let found): key = found
        case .failure(let error) where error.code == .notFound:
            return .failure(PushTokenError(.unknownKey, "no Google signing key has kid \(kid.quotedForMessage)"))
        case .failure(let error):
            return .failure(PushTokenError(.keysUnavailable, error.message))
        }
        guard jws.isSignedRS256(by: key) else {
            return .failure(PushTokenError(.badSignature, "the token's signature does not verify with Google's key \(kid.quotedForMessage)"))
        }
        return Self.checkClaims(jws.payload, expecting: expected, now: now)
    }

    static func checkClaims(_ payload: [UInt8], expecting expected: PushTokenExpectations, now: Int64)
        -> Result<Void, PushTokenError>
    {
        guard let claims = try? JSONReader.read(JSONValue.self, from: payload), case .object = claims else {
            return .failure(PushTokenError(.malformed, "the token's claims are not a JSON object"))
        }
        let issuer = claims["iss"]?.string ?? ""
        guard Self.issuers.contains(issuer) else {
            return .failure(PushTokenError(.wrongIssuer, "the token's iss is \(issuer.quotedForMessage), not Google's"))
        }
        let audiences: [String]
        switch claims["aud"] {
        case .string(let audience): audiences = [audience]
        case .array(let elements):
            let strings = elements.compactMap(\.string)
            audiences = strings.count == elements.count ? strings : []
        default: audiences = []
        }
        guard audiences.contains(expected.audience) else {
            return .failure(PushTokenError(
                .wrongAudience,
                "the token's aud is \((audiences.first ?? "").quotedForMessage), not the configured \(expected.audience.quotedForMessage)"))
        }
        let seconds = now / 1000
        guard let exp = claims["exp"]?.int64, let iat = claims["iat"]?.int64 else {
            return .failure(PushTokenError(.malformed, "the token lacks numeric exp and iat"))
        }
        // The leeway moves `now`, not the token's numbers, which may be anything an Int64 holds.
        guard exp > seconds - Self.leewaySeconds else {
            return .failure(PushTokenError(.expired, "the token expired at \(exp) (now \(seconds))"))
        }
        guard iat <= seconds + Self.leewaySeconds else {
            return .failure(PushTokenError(.notYetValid, "the token is issued in the future (iat \(iat), now \(seconds))"))
        }
        let email = claims["email"]?.string ?? ""
        guard email == expected.serviceAccountEmail else {
            return .failure(PushTokenError(
                .wrongEmail,
                "the token is for \(email.quotedForMessage), not the configured push service account \(expected.serviceAccountEmail.quotedForMessage)"))
        }
        // Google sends a boolean; some encoders a string.
        let verified: Bool
        switch claims["email_verified"] {
        case .bool(let value): verified = value
        case .string(let text): verified = text == "true"
        default: verified = false
        }
        guard verified else {
            return .failure(PushTokenError(.emailNotVerified, "the token's email_verified is not true"))
        }
        return .success(())
    }
}
