public import EntitlementDomain
public import RPCCore

/// Who is calling: the tenant an API key belongs to, checked against the service the call is for.
///
/// Keys arrive as `authorization: Bearer <key>`. Only their hash is compared, in constant time, by the directory;
/// no key ever reaches a log or an error message.
public enum CallerAuthentication {
    /// The tenant of a call to a service that `requires` this kind of key (secret keys may call everything).
    ///
    /// A missing, malformed or unknown key is `UNAUTHENTICATED`; a public key on a service that needs a secret
    /// key is `PERMISSION_DENIED`.
    public static func tenant(
        of context: ServerContext, requires kind: APIKey.Kind, in registry: TenantRegistry
    ) throws(DomainError) -> Tenant {
        var token: String?
        if let header = context.metadata[string: "authorization"] {
            guard let parsed = bearerToken(header) else {
                throw .unauthenticated("the authorization metadata must be \"Bearer <api key>\"")
            }
            token = parsed
        }
        let allowed: Set<APIKey.Kind> = kind == .secretKey ? [.secretKey] : [.publicKey, .secretKey]
        let (directory, generation) = registry.snapshot
        if let token,
            let known = registry.keyCache.lookup(connectionID: context.connectionID, key: token, generation: generation),
            allowed.contains(known.kind)
        {
            return known.tenant
        }
        let (tenant, presented) = try directory.authorize(bearer: token, allowed: allowed, service: context.method.service)
        if let token {
            registry.keyCache.remember(
                connectionID: context.connectionID, key: token, generation: generation, tenant: tenant, kind: presented)
        }
        return tenant
    }

    /// The token of a `Bearer` credential: the scheme in any case (RFC 7235), then spaces, then the token.
    static func bearerToken(_ header: String) -> String? {
        var header = header
        return header.withUTF8 { bytes -> String? in
            let scheme = "bearer".utf8
            guard bytes.count > scheme.count + 1, bytes[scheme.count] == UInt8(ascii: " ") else { return nil }
            for (index, letter) in scheme.enumerated() where bytes[index] | 0x20 != letter { return nil }
            var start = scheme.count
            var end = bytes.count
            while start < end, bytes[start] == UInt8(ascii: " ") || bytes[start] == UInt8(ascii: "\t") { start += 1 }
            while end > start, bytes[end - 1] == UInt8(ascii: " ") || bytes[end - 1] == UInt8(ascii: "\t") { end -= 1 }
            return start < end ? String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self) : nil
        }
    }
}
