import Crypto

/// Every configured tenant, and API key authentication against them. Immutable: a reload builds a new directory
/// and swaps it in whole.
public struct TenantDirectory: Sendable {
    /// One configured key.
    struct KeyEntry: Sendable {
        var key: TenantKey
        var tenantIndex: Int
    }

    /// In configuration order.
    public let tenants: [Tenant]
    private let tenantsByID: [String: Int]
    private let keys: [KeyEntry]
    /// ``ConstantTime/equals(_:_:)``; replaceable so tests can count comparisons.
    private let equals: @Sendable ([UInt8], [UInt8]) -> Bool

    /// A directory of tenants built in code. Fails on a duplicate tenant ID or a key hash listed twice (paths name
    /// the tenant's index: `tenants[1].secret_keys[0]`).
    public init(tenants: [Tenant]) throws(TenantRuleError) {
        try self.init(tenants: tenants, equals: ConstantTime.equals)
    }

    package init(tenants: [Tenant], equals: @escaping @Sendable ([UInt8], [UInt8]) -> Bool) throws(TenantRuleError) {
        var tenantsByID: [String: Int] = [:]
        var keys: [KeyEntry] = []
        var keyPaths: [[UInt8]: String] = [:]
        for (index, tenant) in tenants.enumerated() {
            if let first = tenantsByID[tenant.id] {
                throw TenantRuleError(
                    .duplicateTenant, at: "tenants[\(index)].id", "tenant ID \"\(tenant.id)\" is already used by tenants[\(first)]")
            }
            tenantsByID[tenant.id] = index
            for kind in APIKey.Kind.allCases {
                for (keyIndex, key) in tenant.keys(kind).enumerated() {
                    let path = "tenants[\(index)].\(kind.configField)[\(keyIndex)]"
                    if let first = keyPaths[key.digest] {
                        throw TenantRuleError(
                            .duplicateKeyHash, at: path,
                            "the same key hash is already listed at \(first); a key belongs to one tenant, once")
                    }
                    keyPaths[key.digest] = path
                    keys.append(KeyEntry(key: key, tenantIndex: index))
                }
            }
        }
        self.tenants = tenants
        self.tenantsByID = tenantsByID
        self.keys = keys
        self.equals = equals
    }

    public func tenant(id: String) -> Tenant? {
        tenantsByID[id].map { tenants[$0] }
    }

    /// The tenant and configured key of a presented API key (the bare key, without `Bearer `); nil when it is
    /// unknown.
    ///
    /// The key must start with `pk_` or `sk_` and match a hash configured in that kind's list. Its SHA-256 is
    /// computed once and compared with every configured hash of every tenant in constant time, always all of them,
    /// so neither the comparison nor the loop reveals how close a guess came or which tenant it matched.
    /// (Rejecting a key without a prefix or longer than ``APIKey/maxByteCount`` before hashing reveals nothing
    /// secret.)
    public func authenticate(bearer key: String) -> (tenant: Tenant, key: TenantKey)? {
        guard key.utf8.count <= APIKey.maxByteCount, let kind = APIKey.kind(of: key) else { return nil }
        let digest = APIKey.digest(key)
        var match = -1
        for (index, entry) in keys.enumerated() {
            let equal = equals(digest, entry.key.digest)
            match = equal ? index : match
        }
        guard match >= 0 else { return nil }
        let entry = keys[match]
        // The hash covers the prefix, so only a hash string that lies about its kind gets here with a mismatch.
        guard entry.key.kind == kind else { return nil }
        return (tenants[entry.tenantIndex], entry.key)
    }

    /// Authentication and authorization for one RPC: the tenant when `key` is valid and of an `allowed` kind.
    /// - Throws: `UNAUTHENTICATED` when no key was sent or it is unknown, `PERMISSION_DENIED` when it is of another
    ///   kind. Messages never repeat the key.
    public func authorize(bearer key: String?, allowed: Set<APIKey.Kind>, service: String) throws(DomainError)
        -> (tenant: Tenant, key: TenantKey)
    {
        guard let key, !key.isEmpty else {
            throw .unauthenticated("no API key: send \"authorization: Bearer <key>\"")
        }
        guard let result = authenticate(bearer: key) else {
            throw .unauthenticated("the API key is not valid (unknown, revoked, or not a pk_/sk_ key)")
        }
        let kind = result.key.kind
        guard allowed.contains(kind) else {
            let wanted = APIKey.Kind.allCases.filter(allowed.contains).map { "a \($0.adjective) key (\($0.prefix)...)" }
            throw .permissionDenied(
                "a \(kind.adjective) key (\(kind.prefix)...) may not call \(service); use "
                    + (wanted.isEmpty ? "no key: the service is closed" : wanted.joined(separator: " or ")))
        }
        return result
    }
}
