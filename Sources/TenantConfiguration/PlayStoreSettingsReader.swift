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

        guard let packageNode = members["package_name"] else {
            throw error(
                .missingField, node, path,
                "missing \"package_name\": the app's package name (its applicationId), such as \"com.example.app\"")
        }
        let packageName = try string(packageNode, path: path + ".package_name")
        try rule(packageNode, path + ".package_name") { () throws(TenantRuleError) in
            try PlayStoreSettings.checkPackageName(packageName)
        }

        guard let keyNode = members["service_account_key_file"] else {
            throw error(
                .missingField, node, path,
                "missing \"service_account_key_file\": the JSON key of the service account that calls the Google "
                    + "Play Developer API, relative to the tenants file")
        }
        let keyText = try string(keyNode, path: path + ".service_account_key_file")
        let keyPath = try rule(keyNode, path + ".service_account_key_file") { () throws(TenantRuleError) in
            try PlayStoreSettings.serviceAccountKeyFile(keyText, against: directory)
        }

        guard let environmentsNode = members["environments"] else {
            throw error(
                .missingField, node, path,
                "missing \"environments\": list the Google Play environments whose purchases this tenant accepts "
                    + "(any of " + PlayEnvironmentName.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ") + ")")
        }
        let environmentsPath = path + ".environments"
        let environmentNodes = try array(environmentsNode, path: environmentsPath)
        try rule(environmentsNode, environmentsPath) { () throws(TenantRuleError) in
            try PlayStoreSettings.checkEnvironmentsListed(count: environmentNodes.count)
        }
        var listed: [PlayEnvironmentName] = []
        for (index, environmentNode) in environmentNodes.enumerated() {
            let environmentPath = "\(environmentsPath)[\(index)]"
            let text = try string(environmentNode, path: environmentPath)
            listed.append(
                try rule(environmentNode, environmentPath) { () throws(TenantRuleError) in
                    let environment = try PlayEnvironmentName.named(text)
                    try ListRule.checkNotListed(environment, written: text, in: listed)
                    return environment
                })
        }

        var transferPolicy = TransferPolicy.transfer
        if let policyNode = members["transfer_policy"] {
            let policyPath = path + ".transfer_policy"
            let text = try string(policyNode, path: policyPath)
            transferPolicy = try rule(policyNode, policyPath) { () throws(TenantRuleError) in try TransferPolicy.named(text) }
        }

        var products: [String: PlayProductType] = [:]
        if let productsNode = members["products"] {
            let productsPath = path + ".products"
            guard case .object(let productMembers) = productsNode.value else {
                throw typeMismatch(productsNode, productsPath, expected: "an object of product ID → {\"type\": ...}")
            }
            for member in productMembers {
                let productPath = "\(productsPath)[\"\(member.key)\"]"
                try rule(member.value, productPath) { () throws(TenantRuleError) in try Tenant.checkProductID(member.key) }
                products[member.key] = try playStoreProduct(
                    member.value, path: productPath, id: member.key, mappedProducts: mappedProducts)
            }
        }

        var apiBaseURL = PlayStoreSettings.defaultAPIBaseURL
        if let urlNode = members["api_base_url"] {
            let urlPath = path + ".api_base_url"
            let text = try string(urlNode, path: urlPath)
            try rule(urlNode, urlPath) { () throws(TenantRuleError) in try PlayStoreSettings.checkAPIBaseURL(text) }
            apiBaseURL = text
        }

        var pollMinutes = 60
        if let pollNode = members["voided_purchases_poll_minutes"] {
            let pollPath = path + ".voided_purchases_poll_minutes"
            let text = try number(pollNode, path: pollPath)
            pollMinutes = try rule(pollNode, pollPath) { () throws(TenantRuleError) in
                try PlayStoreSettings.checkVoidedPurchasesPollMinutes(Int(text), written: text)
            }
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
        guard let typeNode = members["type"] else {
            throw error(
                .missingField, node, path,
                "missing \"type\": one of " + PlayProductType.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))
        }
        let typeText = try string(typeNode, path: path + ".type")
        let type = try rule(typeNode, path + ".type") { () throws(TenantRuleError) in try PlayProductType.named(typeText) }
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

        guard let audienceNode = members["audience"] else {
            throw error(
                .missingField, node, path,
                "missing \"audience\": the audience set on the Pub/Sub push subscription (by default its push "
                    + "endpoint URL), which every push token must carry")
        }
        let audience = try string(audienceNode, path: path + ".audience")
        try rule(audienceNode, path + ".audience") { () throws(TenantRuleError) in
            try PlayNotificationSettings.checkAudience(audience)
        }

        guard let accountNode = members["push_service_account"] else {
            throw error(
                .missingField, node, path,
                "missing \"push_service_account\": the email of the service account the Pub/Sub push subscription "
                    + "authenticates as")
        }
        let account = try string(accountNode, path: path + ".push_service_account")
        try rule(accountNode, path + ".push_service_account") { () throws(TenantRuleError) in
            try PlayNotificationSettings.checkPushServiceAccount(account)
        }

        var nodes: [String: JSONNode] = [:]
        nodes[".jwks_file"] = members["jwks_file"]
        try rule(node, path, nodes: nodes) { () throws(TenantRuleError) in
            try PlayNotificationSettings.checkOneSigningKeySource(
                jwksURLGiven: members["jwks_url"] != nil, jwksFileGiven: members["jwks_file"] != nil)
        }
        var signingKeys = PlayNotificationSettings.SigningKeys.url(PlayNotificationSettings.defaultJWKSURL)
        if let urlNode = members["jwks_url"] {
            let text = try string(urlNode, path: path + ".jwks_url")
            try rule(urlNode, path + ".jwks_url") { () throws(TenantRuleError) in
                try PlayNotificationSettings.checkJWKSURL(text)
            }
            signingKeys = .url(text)
        } else if let fileNode = members["jwks_file"] {
            let text = try string(fileNode, path: path + ".jwks_file")
            signingKeys = .file(
                try rule(fileNode, path + ".jwks_file") { () throws(TenantRuleError) in
                    try PlayNotificationSettings.jwksFile(text, against: directory)
                })
        }

        var verifies = true
        if let flagNode = members["verify_push_tokens"] {
            guard case .bool(let flag) = flagNode.value else {
                throw typeMismatch(flagNode, path + ".verify_push_tokens", expected: "true or false")
            }
            verifies = flag
        }

        return PlayNotificationSettings(
            audience: audience, pushServiceAccount: account, signingKeys: signingKeys, verifiesPushTokens: verifies)
    }
}
