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
        return try registry.directory.authorize(
            bearer: token, allowed: allowed, service: context.method.service
        ).tenant
    }

    /// The token of a `Bearer` credential: the scheme in any case (RFC 7235), then spaces, then the token.
    static func bearerToken(_ header: String) -> String? {
        var utf8 = Substring(header).utf8[...]
        let scheme = "bearer".utf8
        guard utf8.count > scheme.count,
            zip(utf8.prefix(scheme.count), scheme).allSatisfy({ $0 | 0x20 == $1 })
        else { return nil }
        utf8 = utf8.dropFirst(scheme.count)
        guard let first = utf8.first, first == UInt8(ascii: " ") else { return nil }
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        while let byte = utf8.first, isBlank(byte) { utf8 = utf8.dropFirst() }
        while let byte = utf8.last, isBlank(byte) { utf8 = utf8.dropLast() }
        return utf8.isEmpty ? nil : String(Substring(utf8))
    }
}
