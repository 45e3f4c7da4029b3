public import EntitlementDomain
public import RPCCore

/// Who is calling: the tenant an API key belongs to, checked against the service the call is for.
///
/// Keys arrive as `authorization: Bearer <key>`. Only their hash is compared, in constant time, by the directory;
/// no key ever reaches a log or an error message.
public enum CallerAuthentication {
    /// The tenant of a call to a service that `requires` this kind of key.
    ///
    /// A missing, malformed or unknown key is `UNAUTHENTICATED`; a public key on a service that needs a secret
    /// key is `PERMISSION_DENIED`. Secret keys may call everything.
    public static func tenant(
        of context: ServerContext, requires kind: APIKey.Kind, in registry: TenantRegistry
    ) throws(RPCError) -> Tenant {
        guard let header = context.metadata[string: "authorization"] else {
            throw RPCError(code: .unauthenticated, message: "Missing 'authorization: Bearer <api key>' metadata.")
        }
        guard let key = bearerToken(header) else {
            throw RPCError(code: .unauthenticated, message: "The authorization metadata must be 'Bearer <api key>'.")
        }
        guard let (tenant, presented) = registry.directory.authenticate(bearer: key) else {
            throw RPCError(code: .unauthenticated, message: "The API key is not valid.")
        }
        if kind == .secretKey, presented != .secretKey {
            throw RPCError(
                code: .permissionDenied, message: "This method needs a secret (sk_) key; public (pk_) keys may not call it.")
        }
        return tenant
    }

    /// The token of a `Bearer` credential (scheme case-insensitive, RFC 7235).
    static func bearerToken(_ header: String) -> String? {
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: " \t")
        return token.isEmpty ? nil : token
    }
}

extension StringProtocol {
    fileprivate func trimmingCharacters(in characters: String) -> String {
        let set = Set(characters)
        let trimmedStart = drop(while: { set.contains($0) })
        return String(trimmedStart.reversed().drop(while: { set.contains($0) }).reversed())
    }
}
