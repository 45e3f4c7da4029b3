import BoundedText
public import EntitlementDomain
public import RPCCore

/// Who a call comes from: the tenant, and the configured key it presented.
///
/// A class: every authenticated call copies it (the connection remembers it, the log line names it), and the tenant
/// it carries is a struct of many references.
public final class Caller: Sendable {
    public let tenant: Tenant
    public let key: TenantKey

    init(tenant: Tenant, key: TenantKey) {
        self.tenant = tenant
        self.key = key
    }
}

/// Who is calling: the tenant an API key belongs to, checked against what the method needs.
///
/// Keys arrive as `authorization: Bearer <key>`. Only their hash is compared, in constant time, by the directory;
/// no key ever reaches a log or an error message.
public enum CallerAuthentication {
    /// The caller of a method that `requires` this kind of key (secret keys may call everything) with `scope`.
    ///
    /// A missing, malformed or unknown key is `UNAUTHENTICATED`; a public key on a service that needs a secret
    /// key is `PERMISSION_DENIED`, and so is a read-only secret key on a method that changes something, and a
    /// browser call (gRPC-Web with `Origin`) from an origin the tenant does not list in `web.allowed_origins`: the
    /// transport's CORS answer allows any tenant's origins, since a preflight carries no key.
    public static func caller(
        of context: ServerContext, requires kind: APIKey.Kind, scope: APIKey.Scope, in registry: TenantRegistry
    ) throws(DomainError) -> Caller {
        var token: String?
        if var header = context.metadata[string: "authorization"] {
            // The common case, the key this connection authenticated with before, costs one constant-time compare.
            let generation = registry.generation
            let remembered = header.withUTF8 { bytes -> Caller? in
                guard let range = bearerTokenRange(bytes),
                    let known = AuthenticatedKey.remembered(
                        in: context.connection, key: UnsafeBufferPointer(rebasing: bytes[range]), generation: generation),
                    may(known.caller.key.kind, call: kind)
                else { return nil }
                return known.caller
            }
            if let remembered { return try check(remembered, of: context, scope: scope) }
            guard let parsed = bearerToken(header) else {
                throw .unauthenticated("the authorization metadata must be \"Bearer <api key>\"")
            }
            token = parsed
        }
        let (directory, generation) = registry.snapshot
        let allowed = Set(APIKey.Kind.allCases.filter { may($0, call: kind) })
        let (tenant, key) = try directory.authorize(bearer: token, allowed: allowed, service: context.method.service)
        let caller = Caller(tenant: tenant, key: key)
        if let token {
            context.connection.store(AuthenticatedKey(key: Array(token.utf8), generation: generation, caller: caller))
        }
        return try check(caller, of: context, scope: scope)
    }

    /// `caller`, unless its key's scope does not reach `scope`, or the call came from a browser page whose origin the
    /// tenant does not list.
    private static func check(_ caller: Caller, of context: ServerContext, scope: APIKey.Scope) throws(DomainError)
        -> Caller
    {
        guard caller.key.scope.allows(scope) else {
            throw .permissionDenied(
                "key \(caller.key.name.quotedForMessage) is read-only and may not call \(context.method.path); use a key "
                    + "with \"scope\": \"write\"")
        }
        guard let origin = context.browserOrigin, !(caller.tenant.browser?.allowsOrigin(origin) ?? false) else { return caller }
        throw .permissionDenied(
            "origin \(origin.quotedForMessage) is not allowed for this tenant; list it in the tenant's "
                + "web.allowed_origins")
    }

    /// Secret keys may call everything; public keys what needs no more.
    private static func may(_ presented: APIKey.Kind, call required: APIKey.Kind) -> Bool {
        presented == .secretKey || required == .publicKey
    }

    /// The token of a `Bearer` credential: the scheme in any case (RFC 7235), then spaces, then the token.
    static func bearerToken(_ header: String) -> String? {
        var header = header
        return header.withUTF8 { bytes in
            bearerTokenRange(bytes).map { String(decoding: UnsafeBufferPointer(rebasing: bytes[$0]), as: UTF8.self) }
        }
    }

    private static let bearerScheme = Array("bearer".utf8)

    private static func bearerTokenRange(_ bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        let scheme = bearerScheme
        guard bytes.count > scheme.count + 1, bytes[scheme.count] == UInt8(ascii: " ") else { return nil }
        for index in scheme.indices where bytes[index] | 0x20 != scheme[index] { return nil }
        var start = scheme.count
        var end = bytes.count
        while start < end, bytes[start] == UInt8(ascii: " ") || bytes[start] == UInt8(ascii: "\t") { start += 1 }
        while end > start, bytes[end - 1] == UInt8(ascii: " ") || bytes[end - 1] == UInt8(ascii: "\t") { end -= 1 }
        return start < end ? start..<end : nil
    }
}
