import FileAccess

/// One app (or family of apps sharing entitlements): its keys, the entitlements it declares and the products that
/// give them. Built by the tenants file reader (module TenantConfiguration), or in code (tests) by
/// ``init(id:publicKeyHashes:secretKeyHashes:entitlements:allowUndeclaredEntitlements:products:appStore:playStore:stripe:browser:webhooks:commissions:exchangeRates:attributes:privacy:retention:userTokens:signedStatus:)``;
/// either way every value has been validated.
public struct Tenant: Hashable, Sendable {
    public static let maxIDLength = 64

    /// 1–64 characters of `[a-z0-9_-]`; the key of every stored row.
    public let id: String
    /// The tenant's `pk_` keys, in configuration order.
    public let publicKeys: [TenantKey]
    /// The tenant's `sk_` keys, in configuration order.
    public let secretKeys: [TenantKey]
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
    /// How the tenant accepts Google Play purchases; nil when it accepts none (no `play_store`).
    public let playStore: PlayStoreSettings?
    /// How the tenant accepts Stripe (web) purchases; nil when it accepts none (no `stripe`).
    public let stripe: StripeSettings?
    /// The browser origins whose pages may call with the tenant's keys; nil when none may (no `web`).
    public let browser: BrowserSettings?
    /// Where the tenant's backend hears of customer changes; empty when nowhere (no `webhooks`).
    public let webhooks: [WebhookEndpoint]
    /// What the stores keep of the tenant's payments, for the revenue ledger's proceeds (``Commissions/defaults``
    /// without `commission`).
    public let commissions: Commissions
    /// The currency metrics convert amounts into, and the rates they use; nil when none is configured (no
    /// `reporting_currency`).
    public let exchangeRates: ExchangeRates?
    /// Which customer attribute keys apps and the backend may write (``AttributeSettings/defaults`` without
    /// `attributes`).
    public let attributes: AttributeSettings
    /// What an erasure does with accounting records (``PrivacySettings/defaults`` without `privacy`).
    public let privacy: PrivacySettings
    /// How long events, webhook deliveries and redemption codes are kept (``RetentionSettings/defaults`` without
    /// `retention`).
    public let retention: RetentionSettings
    /// Whether app-facing calls must prove their app user ID with a token from the tenant's backend
    /// (``UserTokenSettings/off`` without `user_tokens`).
    public let userTokens: UserTokenSettings
    /// The keys customer status is signed with for apps to verify; nil when it is not signed (no `signed_status`).
    public let signedStatus: StatusSigningSettings?

    /// Assembles a tenant from values each rule below has already accepted (the tenants file reader's way).
    package init(
        id: String, publicKeys: [TenantKey], secretKeys: [TenantKey], listedEntitlements: [String],
        allowUndeclaredEntitlements: Bool, products: [String: [String]], appStore: AppStoreSettings? = nil,
        playStore: PlayStoreSettings? = nil, stripe: StripeSettings? = nil, browser: BrowserSettings? = nil,
        webhooks: [WebhookEndpoint] = [], commissions: Commissions = .defaults, exchangeRates: ExchangeRates? = nil,
        attributes: AttributeSettings = .defaults, privacy: PrivacySettings = .defaults,
        retention: RetentionSettings = .defaults, userTokens: UserTokenSettings = .off,
        signedStatus: StatusSigningSettings? = nil
    ) {
        self.id = id
        self.publicKeys = publicKeys
        self.secretKeys = secretKeys
        self.listedEntitlements = listedEntitlements
        self.allowUndeclaredEntitlements = allowUndeclaredEntitlements
        self.products = products
        self.appStore = appStore
        self.playStore = playStore
        self.stripe = stripe
        self.browser = browser
        self.webhooks = webhooks
        self.commissions = commissions
        self.exchangeRates = exchangeRates
        self.attributes = attributes
        self.privacy = privacy
        self.retention = retention
        self.userTokens = userTokens
        self.signedStatus = signedStatus
        declaredEntitlements = Set(listedEntitlements).union(products.values.joined())
    }

    /// A tenant built in code, validated by the same rules as a configured one (errors name `tenant.FIELD`, as
    /// `<memory>: tenant.entitlements[0]: ...`). Key hashes are `pk_sha256:<hex>` / `sk_sha256:<hex>` strings, as
    /// ``APIKey/hashString(_:)`` makes them. `appStore` is checked like a configured `app_store` (relative root
    /// certificate paths are resolved against the working directory), `playStore` like a configured `play_store`
    /// (its relative key and JWKS file paths likewise), `stripe` like a configured `stripe` (its relative API key
    /// file path likewise), `browser` like a configured `web`, `webhooks` like a configured `webhooks`, the product
    /// IDs of `commissions` like a configured `commission`'s (its rates are valid as made), `attributes` like a
    /// configured `attributes`, `retention` like a configured `retention`, `userTokens` like a configured
    /// `user_tokens`, `signedStatus` like a configured `signed_status`. Products are checked in sorted order.
    public init(
        id: String, publicKeyHashes: [String] = [], secretKeyHashes: [String] = [], entitlements: [String] = [],
        allowUndeclaredEntitlements: Bool = false, products: [String: [String]] = [:],
        appStore: AppStoreSettings? = nil, playStore: PlayStoreSettings? = nil, stripe: StripeSettings? = nil,
        browser: BrowserSettings? = nil, webhooks: [WebhookEndpoint] = [], commissions: Commissions = .defaults,
        exchangeRates: ExchangeRates? = nil, attributes: AttributeSettings = .defaults,
        privacy: PrivacySettings = .defaults, retention: RetentionSettings = .defaults,
        userTokens: UserTokenSettings = .off, signedStatus: StatusSigningSettings? = nil
    ) throws(TenantRuleError) {
        self = try TenantRuleError.at("tenant") { () throws(TenantRuleError) -> Tenant in
            try TenantRuleError.at(".id") { () throws(TenantRuleError) in try Tenant.checkID(id) }
            var keys: [APIKey.Kind: [TenantKey]] = [:]
            for (kind, hashes) in [(APIKey.Kind.publicKey, publicKeyHashes), (.secretKey, secretKeyHashes)] {
                for (index, hash) in hashes.enumerated() {
                    keys[kind, default: []].append(
                        try TenantRuleError.at(".\(kind.configField)[\(index)]") { () throws(TenantRuleError) in
                            TenantKey(kind: kind, digest: try APIKey.digest(ofHashString: hash, listedAs: kind))
                        })
                }
            }
            try Tenant.checkHasKeys(id: id, keyCount: publicKeyHashes.count + secretKeyHashes.count)
            var listed: [String] = []
            for (index, entitlement) in entitlements.enumerated() {
                try TenantRuleError.at(".entitlements[\(index)]") { () throws(TenantRuleError) in
                    try Tenant.checkEntitlement(entitlement, listedAfter: listed)
                }
                listed.append(entitlement)
            }
            for product in products.keys.sorted() {
                try TenantRuleError.at(".products[\"\(product)\"]") { () throws(TenantRuleError) in
                    try Tenant.checkProductID(product)
                    let given = products[product]!
                    try ListRule.checkEach(given) { entitlement, before throws(TenantRuleError) in
                        try Tenant.checkEntitlement(entitlement, listedAfter: before)
                    }
                    try Tenant.checkProductGivesEntitlements(product, given)
                }
            }
            let checkedAppStore = try appStore.map { settings throws(TenantRuleError) in
                try TenantRuleError.at(".app_store") { () throws(TenantRuleError) in
                    try settings.validated(mappedProducts: products, directory: FileSystem.currentDirectory())
                }
            }
            let checkedPlayStore = try playStore.map { settings throws(TenantRuleError) in
                try TenantRuleError.at(".play_store") { () throws(TenantRuleError) in
                    try settings.validated(mappedProducts: products, directory: FileSystem.currentDirectory())
                }
            }
            let checkedStripe = try stripe.map { settings throws(TenantRuleError) in
                try TenantRuleError.at(".stripe") { () throws(TenantRuleError) in
                    try settings.validated(mappedProducts: products, directory: FileSystem.currentDirectory())
                }
            }
            let checkedBrowser = try browser.map { settings throws(TenantRuleError) in
                try TenantRuleError.at(".web") { () throws(TenantRuleError) in try settings.validated() }
            }
            let checkedWebhooks = try TenantRuleError.at(".webhooks") { () throws(TenantRuleError) in
                try WebhookEndpoint.validated(webhooks)
            }
            let checkedAttributes = try TenantRuleError.at(".attributes") { () throws(TenantRuleError) in
                try attributes.validated()
            }
            let checkedRetention = try TenantRuleError.at(".retention") { () throws(TenantRuleError) in
                try retention.validated()
            }
            let checkedUserTokens = try TenantRuleError.at(".user_tokens") { () throws(TenantRuleError) in
                try userTokens.validated(directory: FileSystem.currentDirectory())
            }
            let checkedSignedStatus = try signedStatus.map { settings throws(TenantRuleError) in
                try TenantRuleError.at(".signed_status") { () throws(TenantRuleError) in try settings.validated() }
            }
            for (field, commission) in [
                ("app_store", commissions.appStore), ("play_store", commissions.playStore), ("stripe", commissions.stripe),
            ] {
                for product in commission.products.keys.sorted() {
                    try TenantRuleError.at(".commission.\(field).products[\"\(product)\"]") { () throws(TenantRuleError) in
                        try Tenant.checkProductID(product)
                    }
                }
            }
            return Tenant(
                id: id, publicKeys: keys[.publicKey] ?? [], secretKeys: keys[.secretKey] ?? [],
                listedEntitlements: listed, allowUndeclaredEntitlements: allowUndeclaredEntitlements,
                products: products, appStore: checkedAppStore, playStore: checkedPlayStore, stripe: checkedStripe,
                browser: checkedBrowser, webhooks: checkedWebhooks, commissions: commissions, exchangeRates: exchangeRates,
                attributes: checkedAttributes, privacy: privacy, retention: checkedRetention, userTokens: checkedUserTokens,
                signedStatus: checkedSignedStatus)
        }
    }

    // MARK: Rules (errors are relative to the checked value; the tenants file reader and the initializer share them)

    /// 1–64 characters of `[a-z0-9_-]`.
    package static func checkID(_ id: String) throws(TenantRuleError) {
        func problem() -> String? {
            if id.isEmpty { return "the tenant ID is empty; use 1 to \(maxIDLength) characters of a-z, 0-9, _ and -" }
            if id.utf8.count > maxIDLength {
                return "the tenant ID is \(id.utf8.count) characters long; the limit is \(maxIDLength)"
            }
            let allowed = id.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
            }
            if !allowed {
                return "tenant ID \"\(id.unicodeScalars.map { AppUserID.isControl($0) ? "?" : String($0) }.joined())\" "
                    + "may only contain a-z, 0-9, _ and -"
            }
            return nil
        }
        if let problem = problem() { throw TenantRuleError(.invalidValue, problem) }
    }

    /// A tenant lists at least one key of either kind.
    package static func checkHasKeys(id: String, keyCount: Int) throws(TenantRuleError) {
        if keyCount == 0 {
            throw TenantRuleError(
                .noKeys, "tenant \"\(id)\" has no keys: list at least one hash in \"public_keys\" or \"secret_keys\"")
        }
    }

    /// An entry of `entitlements` or of a product's list: a valid ``EntitlementID``, not among the list's `previous`.
    package static func checkEntitlement(_ id: String, listedAfter previous: [String]) throws(TenantRuleError) {
        if let problem = EntitlementID.problem(with: id) { throw TenantRuleError(.invalidValue, "entitlement ID \(problem)") }
        try ListRule.checkNotListed(id, written: id, in: previous)
    }

    /// A store product ID (in `products`, `app_store.products` or `play_store.products`): not empty, no control
    /// characters, no surrounding whitespace. Any other character is allowed, `:` included: a Play subscription's
    /// base plan maps on its own as `"<productId>:<basePlanId>"`.
    package static func checkProductID(_ id: String) throws(TenantRuleError) {
        if id.isEmpty { throw TenantRuleError(.invalidValue, "a product ID is empty") }
        if let scalar = id.unicodeScalars.first(where: AppUserID.isControl) {
            throw TenantRuleError(.invalidValue, "product ID contains the control character \(AppUserID.codePoint(scalar))")
        }
        if AppUserID.isWhitespace(id.unicodeScalars.first!) || AppUserID.isWhitespace(id.unicodeScalars.last!) {
            throw TenantRuleError(.invalidValue, "product ID \"\(id)\" has leading or trailing whitespace")
        }
    }

    /// A product in `products` gives at least one entitlement.
    package static func checkProductGivesEntitlements(_ id: String, _ entitlements: [String]) throws(TenantRuleError) {
        if entitlements.isEmpty {
            throw TenantRuleError(
                .invalidValue, "product \"\(id)\" gives no entitlements; list at least one, or leave the product out")
        }
    }

    /// The keys of one kind.
    public func keys(_ kind: APIKey.Kind) -> [TenantKey] {
        switch kind {
        case .publicKey: publicKeys
        case .secretKey: secretKeys
        }
    }

    /// The entitlements a purchase of `productID` gives; empty for a product the tenant does not know.
    public func entitlements(forProduct productID: String) -> [String] {
        products[productID] ?? []
    }

    /// The entitlements a Play subscription on `basePlanID` gives: `"<product>:<basePlan>"`'s when the tenant maps the
    /// base plan on its own, else the product's.
    public func entitlements(forProduct productID: String, basePlan basePlanID: String?) -> [String] {
        if let basePlanID, !basePlanID.isEmpty, let mapped = products["\(productID):\(basePlanID)"] { return mapped }
        return entitlements(forProduct: productID)
    }

    /// Who keeps a purchase of `store` that another user presents.
    public func transferPolicy(for store: Store) -> TransferPolicy {
        switch store {
        case .appStore: appStore?.transferPolicy ?? .transfer
        case .playStore: playStore?.transferPolicy ?? .transfer
        case .stripe: stripe?.transferPolicy ?? .transfer
        }
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
            throw .invalidRequest(
                "\(field) \"\(entitlementID)\" is not declared by this tenant's configuration (declared: "
                    + (declared.isEmpty ? "none" : declared)
                    + "); declare it in \"entitlements\" or a product, or set \"allow_undeclared_entitlements\"")
        }
        return entitlementID
    }
}
