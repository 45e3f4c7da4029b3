import CivilCalendar
import Encodings
import Foundation
import HTTP1
import JOSE

/// `verify-status JWS`: checks a signed status (`CustomerStatus.signed_status`) as an app would, against the keys the
/// tenant publishes, and prints what it says.
extension Entctl {
    /// `verify-status JWS [--jwks FILE] [--tenant ID]`: exit 0 only when the signature verifies with the tenant's key
    /// of the token's `kid` and `exp` has not passed.
    func verifyStatus() async throws -> Int32 {
        try arguments.check(positionals: ["JWS"], options: ["--jwks", "--tenant"])
        let text = try arguments.positional(0, "JWS")
        let token = text == "-" ? (readLine(strippingNewline: true) ?? "") : text
        let jws: CompactJWS
        do {
            jws = try CompactJWS(token)
        } catch {
            throw DevCommands.Failure(description: "not a compact JWS: \(error.message)")
        }
        guard jws.header.alg == "ES256", let kid = jws.header.kid, !kid.isEmpty else {
            throw DevCommands.Failure(description: "not a signed status: the header must say alg ES256 and name a kid")
        }
        guard let claims = try? JSONReader.read(JSONValue.self, from: jws.payload), case .object = claims else {
            throw DevCommands.Failure(description: "not a signed status: the payload is not a JSON object")
        }
        let tenant = try arguments.optional("--tenant") ?? claims["tenant"]?.string ?? ""
        let keySet = try await statusKeys(tenant: tenant)
        guard let key = keySet.es256Keys[kid] else {
            throw DevCommands.Failure(description: "tenant \(tenant) publishes no key with kid \(kid)")
        }
        do {
            try jws.verifyES256(by: key)
        } catch {
            throw DevCommands.Failure(description: "the signature does not verify with key \(kid): forged or altered")
        }
        guard claims["tenant"]?.string == tenant else {
            throw DevCommands.Failure(description: "signed for tenant \(claims["tenant"]?.string ?? "(none)"), not \(tenant)")
        }
        guard let issuedAt = claims["iat"]?.int64, let expiresAt = claims["exp"]?.int64 else {
            throw DevCommands.Failure(description: "the signed status lacks iat or exp")
        }
        let now = Int64(Date().timeIntervalSince1970)
        guard now < expiresAt else {
            throw DevCommands.Failure(
                description: "the signature verifies, but the status expired at \(CivilCalendar.iso8601(seconds: expiresAt))")
        }
        printer.print(
            JSONValue.object([("verified", .bool(true)), ("kid", .string(kid)), ("claims", claims)]),
            human: Self.verifiedLines(claims, kid: kid, issuedAt: issuedAt, expiresAt: expiresAt))
        return 0
    }

    /// The tenant's published keys: `--jwks FILE`, or the server's `/.well-known/entitlementd/TENANT/jwks.json`.
    private func statusKeys(tenant: String) async throws -> JSONWebKeySet {
        let document: [UInt8]
        if let path = try arguments.optional("--jwks") {
            guard let bytes = FileManager.default.contents(atPath: path) else {
                throw DevCommands.Failure(description: "cannot read --jwks \(path)")
            }
            document = Array(bytes)
        } else {
            guard !tenant.isEmpty, tenant.utf8.allSatisfy({ $0 < 0x80 && !"/?#%".utf8.contains($0) }) else {
                throw DevCommands.Failure(description: "the token names no usable tenant: pass --tenant ID or --jwks FILE")
            }
            let path = "/.well-known/entitlementd/\(tenant)/jwks.json"
            let response = try await ServerHTTP.send("GET", path: path, to: options.address, timeout: options.timeout)
            guard response.status == 200 else {
                throw DevCommands.Failure(
                    description: "GET \(path) answered \(response.status): "
                        + String(decoding: response.body.prefix(200), as: UTF8.self))
            }
            document = response.body
        }
        do {
            return try JSONWebKeySet(json: document)
        } catch {
            throw DevCommands.Failure(description: "the status keys are not a JWKS: \(error.message)")
        }
    }

    /// `verified: tenant demo, key 2026-12`, the customer's line and entitlements, then when it was signed and until
    /// when an app may trust it offline.
    private static func verifiedLines(_ claims: JSONValue, kid: String, issuedAt: Int64, expiresAt: Int64) -> [String] {
        let status = claims["status"]
        var header = "\(claims["sub"]?.string ?? "-")  \(status?["state"]?.string ?? "-")"
        header += "  version \(claims["version"]?.int64.map(String.init) ?? "-")"
        if let alias = claims["alias"]?.string { header += "  (asked as \(alias))" }
        var lines = ["verified: tenant \(claims["tenant"]?.string ?? "-"), key \(kid)", header]
        if case .array(let entitlements)? = status?["entitlements"] {
            for entitlement in entitlements {
                let until = entitlement["expires_at"]?.string.map { " until " + $0 } ?? " lifetime"
                lines.append(
                    "  \(entitlement["id"]?.string ?? "-")\(until) (\(entitlement["source"]?.string ?? "-"))")
            }
        }
        lines.append("signed \(CivilCalendar.iso8601(seconds: issuedAt)), valid offline until \(CivilCalendar.iso8601(seconds: expiresAt))")
        return lines
    }
}
