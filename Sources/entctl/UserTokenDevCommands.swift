import AppStore
import Crypto
import Encodings
import Foundation
import JOSE

/// `dev user-token`: a user token as a tenant's backend would sign it (HS256 with one of the tenant's
/// `user_tokens.hs256_secrets`), for trying a tenant that requires them without a backend.
extension DevCommands {
    /// The demo tenant's user-token secret and issuer (Config/tenants.demo.json): public knowledge, like its API keys.
    static let demoUserTokenSecret = "demo-user-token-secret-for-local-testing-only"
    static let demoUserTokenIssuer = "https://auth.demo.example"

    /// `dev user-token APP_USER_ID [--tenant ID] [--secret S] [--issuer ISS] [--ttl SECONDS]`: prints the token.
    func userToken() throws -> Int32 {
        try arguments.check(positionals: ["APP_USER_ID"], options: ["--tenant", "--secret", "--issuer", "--ttl"])
        let appUserID = arguments.positionals[0]
        guard !appUserID.isEmpty else { throw UsageError(description: "APP_USER_ID is empty") }
        let ttl: Int64 = try arguments.optional("--ttl").map { text throws(UsageError) -> Int64 in
            guard let seconds = Int64(text), (1...86_400).contains(seconds) else {
                throw UsageError(description: "--ttl must be 1 to 86400 seconds, not '\(text.prefix(20))'")
            }
            return seconds
        } ?? 600
        let now = LocalPayloads.nowMilliseconds() / 1000
        let claims = JSONValue.object([
            ("sub", .string(appUserID)), ("aud", .string(try arguments.optional("--tenant") ?? "demo")),
            ("iss", .string(try arguments.optional("--issuer") ?? Self.demoUserTokenIssuer)),
            ("iat", .number(String(now))), ("exp", .number(String(now + ttl))),
            ("jti", .string(SecureRandom.hex(16))),
        ])
        let token = JWSSigning.signHS256(
            headerJSON: Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8), payload: Array(claims.text.utf8),
            secret: Array((try arguments.optional("--secret") ?? Self.demoUserTokenSecret).utf8))
        Output.line(token)
        return 0
    }
}
