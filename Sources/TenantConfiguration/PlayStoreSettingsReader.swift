import EntitlementDomain

/// A tenant's `play_store` object (see ``PlayStoreSettings`` for the format): the JSON shapes here, every rule from
/// the domain.
extension TenantConfigReader {
    static let playStoreFields = [
        "package_name", "service_account_key_file", "environments", "transfer_policy", "products", "api_base_url",
        "voided_purchases_poll_minutes", "notifications", "_comment",
    ]
    static let playStoreProductFields = ["type"]
    static let playNotificationFields = [
        "audience", "push_service_account", "jwks_url", "jwks_file", "verify_push_tokens", "_comment",
    ]

    /// A tenant's `play_store` object. `mappedProducts` is the tenant's `products` (product or
    /// `"<product>:<basePlan>"` → entitlements).
    func playStoreSettings(_ node: JSONNode, path: String, mappedProducts: [String: [String]])
        throws(TenantConfigError) -> PlayStoreSettings
    {
        let members = try object(node, path: path, allowed: Self.playStoreFields, what: "\"play_store\"")

        let packageName = try requiredString(
            "package_name", of: members, in: node, at: path,
            "the app's package name (its applicationId), such as \"com.example.app\""
        ) { text throws(TenantRuleError) in try PlayStoreSettings.checkPackageName(text) }

        let keyPath = try requiredStringValue(
            "service_account_key_file", of: members, in: node, at: path,
            "the JSON key of the service account that calls the Google Play Developer API, relative to the tenants file"
        ) { text throws(TenantRuleError) in try PlayStoreSettings.serviceAccountKeyFile(text, against: directory) }

        let listed = try requiredNames(
            "environments", of: members, in: node, at: path,
            "list the Google Play environments whose purchases this tenant accepts "
                + "(any of " + PlayEnvironmentName.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ") + ")",
            count: { count throws(TenantRuleError) in try PlayStoreSettings.checkEnvironmentsListed(count: count) }
        ) { text throws(TenantRuleError) in try PlayEnvironmentName.named(text) }.elements

        let transferPolicy = try optionalTransferPolicy(of: members, at: path)
        let products = try optionalStoreProducts(of: members, at: path) { node, productPath, id throws(TenantConfigError) in
            try playStoreProduct(node, path: productPath, id: id, mappedProducts: mappedProducts)
        }
        let apiBaseURL = try optionalString(
            "api_base_url", of: members, at: path, absent: PlayStoreSettings.defaultAPIBaseURL
        ) { text throws(TenantRuleError) in try PlayStoreSettings.checkAPIBaseURL(text) }
        let pollMinutes = try optionalNumber("voided_purchases_poll_minutes", of: members, at: path, absent: 60) {
            minutes, text throws(TenantRuleError) in
            try PlayStoreSettings.checkVoidedPurchasesPollMinutes(minutes, written: text)
        }

        let notifications = try members["notifications"].map { notificationsNode throws(TenantConfigError) in
            try playNotificationSettings(notificationsNode, path: path + ".notifications")
        }

        return PlayStoreSettings(
            packageName: packageName, serviceAccountKeyPath: keyPath, environments: Set(listed),
            transferPolicy: transferPolicy, products: products, apiBaseURL: apiBaseURL,
            voidedPurchasesPollMinutes: pollMinutes, notifications: notifications)
    }

    private func playStoreProduct(_ node: JSONNode, path: String, id: String, mappedProducts: [String: [String]])
        throws(TenantConfigError) -> PlayProductType
    {
        let members = try object(node, path: path, allowed: Self.playStoreProductFields, what: "a Google Play product")
        let type = try requiredStringValue(
            "type", of: members, in: node, at: path,
            "one of " + PlayProductType.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        ) { text throws(TenantRuleError) in try PlayProductType.named(text) }
        try rule(node, path) { () throws(TenantRuleError) in
            try PlayStoreSettings.checkProduct(id, type: type, mappedProducts: mappedProducts)
        }
        return type
    }

    /// A `play_store.notifications` object.
    private func playNotificationSettings(_ node: JSONNode, path: String) throws(TenantConfigError)
        -> PlayNotificationSettings
    {
        let members = try object(node, path: path, allowed: Self.playNotificationFields, what: "\"notifications\"")

        let audience = try requiredString(
            "audience", of: members, in: node, at: path,
            "the audience set on the Pub/Sub push subscription (by default its push endpoint URL), which every push "
                + "token must carry"
        ) { text throws(TenantRuleError) in try PlayNotificationSettings.checkAudience(text) }

        let account = try requiredString(
            "push_service_account", of: members, in: node, at: path,
            "the email of the service account the Pub/Sub push subscription authenticates as"
        ) { text throws(TenantRuleError) in try PlayNotificationSettings.checkPushServiceAccount(text) }

        let signingKeys =
            try signingKeySource(of: members, in: node, at: path) ?? .url(PlayNotificationSettings.defaultJWKSURL)

        let verifies = try optionalFlag("verify_push_tokens", of: members, at: path, absent: true)

        return PlayNotificationSettings(
            audience: audience, pushServiceAccount: account, signingKeys: signingKeys, verifiesPushTokens: verifies)
    }
}
