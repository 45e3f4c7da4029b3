/// One app (or family of apps sharing entitlements): its keys, the entitlements it declares and the products that
/// give them. Built by ``TenantConfigLoader`` from the configuration file, or in code (tests) by
/// ``init(id:publicKeyHashes:secretKeyHashes:entitlements:allowUndeclaredEntitlements:products:)``; either way
/// every value has been validated.
public struct Tenant: Hashable, Sendable {
    public static let maxIDLength = 64

    /// 1–64 characters of `[a-z0-9_-]`; the key of every stored row.
    public let id: String
    /// SHA-256 digests of the tenant's `pk_` keys, in configuration order.
    public let publicKeyDigests: [[UInt8]]
    /// SHA-256 digests of the tenant's `sk_` keys, in configuration order.
    public let secretKeyDigests: [[UInt8]]
    /// The `entitlements` list as configured.
    public let listedEntitlements: [String]
    /// Every entitlement the tenant declares: the `entitlements` list and every entitlement a product names.
    public let declaredEntitlements: Set<String>
    /// Whether `GrantEntitlement` may grant an entitlement that is not declared.
    public let allowUndeclaredEntitlements: Bool
    /// Store product ID → the entitlements a purchase of it gives.
    public let products: [String: [String]]
    /// How the tenant accepts App Store purchases; nil when it accepts none (no `app_store` in its configuration).
    public let appStore: AppStoreSettings?

    init(
        id: String, publicKeyDigests: [[UInt8]], secretKeyDigests: [[UInt8]], listedEntitlements: [String],
        allowUndeclaredEntitlements: Bool, products: [String: [String]], appStore: AppStoreSettings? = nil
    ) {
        self.id = id
        self.publicKeyDigests = publicKeyDigests
        self.secretKeyDigests = secretKeyDigests
        self.listedEntitlements = listedEntitlements
        self.allowUndeclaredEntitlements = allowUndeclaredEntitlements
        self.products = products
        self.appStore = appStore
        declaredEntitlements = Set(listedEntitlements).union(products.values.joined())
    }

    /// A tenant built in code, validated exactly as a configured one would be (errors name `<memory>` and
    /// `tenant.FIELD`). Key hashes are `pk_sha256:<hex>` / `sk_sha256:<hex>` strings, as ``APIKey/hashString(_:)``
    /// makes them. `appStore` is checked like a configured `app_store` (relative root certificate paths are
    /// resolved against the working directory).
    public init(
        id: String, publicKeyHashes: [String] = [], secretKeyHashes: [String] = [], entitlements: [String] = [],
        allowUndeclaredEntitlements: Bool = false, products: [String: [String]] = [:],
        appStore: AppStoreSettings? = nil
    ) throws(TenantConfigError) {
        func strings(_ values: [String]) -> JSONNode {
            JSONNode(value: .array(values.map { JSONNode(value: .string($0), line: 0) }), line: 0)
        }
        let productMembers = products.keys.sorted().map { product in
            JSONNode.Member(key: product, value: strings(products[product]!))
        }
        let node = JSONNode(
            value: .object([
                JSONNode.Member(key: "id", value: JSONNode(value: .string(id), line: 0)),
                JSONNode.Member(key: "public_keys", value: strings(publicKeyHashes)),
                JSONNode.Member(key: "secret_keys", value: strings(secretKeyHashes)),
                JSONNode.Member(key: "entitlements", value: strings(entitlements)),
                JSONNode.Member(
                    key: "allow_undeclared_entitlements",
                    value: JSONNode(value: .bool(allowUndeclaredEntitlements), line: 0)),
                JSONNode.Member(key: "products", value: JSONNode(value: .object(productMembers), line: 0)),
            ] + (appStore.map { [JSONNode.Member(key: "app_store", value: $0.jsonNode)] } ?? [])),
            line: 0)
        var reader = TenantConfigReader(file: "<memory>", lines: false)
        self = try reader.tenant(node, path: "tenant")
    }

    /// The digests of one kind of key.
    public func keyDigests(_ kind: APIKey.Kind) -> [[UInt8]] {
        switch kind {
        case .publicKey: publicKeyDigests
        case .secretKey: secretKeyDigests
        }
    }

    /// The entitlements a purchase of `productID` gives; empty for a product the tenant does not know.
    public func entitlements(forProduct productID: String) -> [String] {
        products[productID] ?? []
    }

    public func isDeclared(entitlementID: String) -> Bool {
        declaredEntitlements.contains(entitlementID)
    }

    /// `entitlementID` unchanged when `GrantEntitlement` may grant it: a valid ID (``EntitlementID``) that the tenant
    /// declares, or any valid ID when the tenant allows undeclared entitlements. Otherwise `INVALID_ARGUMENT`.
    @discardableResult
    public func validateGrantable(entitlementID: String, field: String = "entitlement_id") throws(DomainError)
        -> String
    {
        try EntitlementID.validate(entitlementID, field: field)
        guard allowUndeclaredEntitlements || isDeclared(entitlementID: entitlementID) else {
            let declared = declaredEntitlements.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
            throw .invalidArgument(
                "\(field) \"\(entitlementID)\" is not declared by this tenant's configuration (declared: "
                    + (declared.isEmpty ? "none" : declared)
                    + "); declare it in \"entitlements\" or a product, or set \"allow_undeclared_entitlements\"")
        }
        return entitlementID
    }
}
