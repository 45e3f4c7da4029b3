import EntitlementDomain

/// A tenant's `stripe` object (see ``StripeSettings`` for the format): the JSON shapes here, every rule from the
/// domain. No error quotes a webhook secret or the API key.
extension TenantConfigReader {
    static let stripeFields = [
        "webhook_secrets", "signature_tolerance_seconds", "environments", "prices", "products", "past_due_grace_days",
        "redemption_code_days", "transfer_policy", "api_key_file", "api_base_url", "_comment",
    ]

    /// A tenant's `stripe` object. `mappedProducts` is the tenant's `products` (product → entitlements).
    func stripeSettings(_ node: JSONNode, path: String, mappedProducts: [String: [String]])
        throws(TenantConfigError) -> StripeSettings
    {
        let members = try object(node, path: path, allowed: Self.stripeFields, what: "\"stripe\"")

        guard let secretsNode = members["webhook_secrets"] else {
            throw error(
                .missingField, node, path,
                "missing \"webhook_secrets\": the signing secret (\"whsec_…\") of the Stripe webhook endpoint that "
                    + "posts to this tenant (Stripe Dashboard → Developers → Webhooks → the endpoint → Signing secret)")
        }
        let secretsPath = path + ".webhook_secrets"
        let secretNodes = try array(secretsNode, path: secretsPath)
        try rule(secretsNode, secretsPath) { () throws(TenantRuleError) in
            try StripeSettings.checkWebhookSecretCount(secretNodes.count)
        }
        var secrets: [String] = []
        for (index, secretNode) in secretNodes.enumerated() {
            let secretPath = "\(secretsPath)[\(index)]"
            let secret = try string(secretNode, path: secretPath)
            try rule(secretNode, secretPath) { () throws(TenantRuleError) in
                try StripeSettings.checkWebhookSecret(secret, listedAfter: secrets)
            }
            secrets.append(secret)
        }

        var tolerance = StripeSettings.defaultSignatureToleranceSeconds
        if let toleranceNode = members["signature_tolerance_seconds"] {
            let tolerancePath = path + ".signature_tolerance_seconds"
            let text = try number(toleranceNode, path: tolerancePath)
            tolerance = try rule(toleranceNode, tolerancePath) { () throws(TenantRuleError) in
                try StripeSettings.checkSignatureToleranceSeconds(Int(text), written: text)
            }
        }

        guard let environmentsNode = members["environments"] else {
            throw error(
                .missingField, node, path,
                "missing \"environments\": list the Stripe modes whose events this tenant accepts (\"live\" for "
                    + "livemode true, \"test\" for livemode false)")
        }
        let environmentsPath = path + ".environments"
        let environmentNodes = try array(environmentsNode, path: environmentsPath)
        try rule(environmentsNode, environmentsPath) { () throws(TenantRuleError) in
            try StripeSettings.checkEnvironmentsListed(count: environmentNodes.count)
        }
        var listed: [StripeEnvironmentName] = []
        for (index, environmentNode) in environmentNodes.enumerated() {
            let environmentPath = "\(environmentsPath)[\(index)]"
            let text = try string(environmentNode, path: environmentPath)
            listed.append(
                try rule(environmentNode, environmentPath) { () throws(TenantRuleError) in
                    let environment = try StripeEnvironmentName.named(text)
                    try ListRule.checkNotListed(environment, written: text, in: listed)
                    return environment
                })
        }

        let prices = try stripeMapping(
            members["prices"], path: path + ".prices", kind: .price, mappedProducts: mappedProducts)
        let products = try stripeMapping(
            members["products"], path: path + ".products", kind: .product, mappedProducts: mappedProducts)
        try rule(node, path) { () throws(TenantRuleError) in
            try StripeSettings.checkSomethingMapped(priceCount: prices.count, productCount: products.count)
        }

        var graceDays = 0
        if let graceNode = members["past_due_grace_days"] {
            let gracePath = path + ".past_due_grace_days"
            let text = try number(graceNode, path: gracePath)
            graceDays = try rule(graceNode, gracePath) { () throws(TenantRuleError) in
                try StripeSettings.checkPastDueGraceDays(Int(text), written: text)
            }
        }

        var codeDays = StripeSettings.defaultRedemptionCodeDays
        if let codeNode = members["redemption_code_days"] {
            let codePath = path + ".redemption_code_days"
            let text = try number(codeNode, path: codePath)
            codeDays = try rule(codeNode, codePath) { () throws(TenantRuleError) in
                try StripeSettings.checkRedemptionCodeDays(Int(text), written: text)
            }
        }

        var transferPolicy = TransferPolicy.transfer
        if let policyNode = members["transfer_policy"] {
            let policyPath = path + ".transfer_policy"
            let text = try string(policyNode, path: policyPath)
            transferPolicy = try rule(policyNode, policyPath) { () throws(TenantRuleError) in try TransferPolicy.named(text) }
        }

        var keyPath: String?
        if let keyNode = members["api_key_file"] {
            let text = try string(keyNode, path: path + ".api_key_file")
            keyPath = try rule(keyNode, path + ".api_key_file") { () throws(TenantRuleError) in
                try StripeSettings.apiKeyFile(text, against: directory)
            }
        }

        var apiBaseURL = StripeSettings.defaultAPIBaseURL
        if let urlNode = members["api_base_url"] {
            let urlPath = path + ".api_base_url"
            let text = try string(urlNode, path: urlPath)
            try rule(urlNode, urlPath) { () throws(TenantRuleError) in try StripeSettings.checkAPIBaseURL(text) }
            apiBaseURL = text
        }

        return StripeSettings(
            webhookSecrets: secrets, signatureToleranceSeconds: tolerance, environments: Set(listed), prices: prices,
            products: products, pastDueGraceDays: graceDays, redemptionCodeDays: codeDays,
            transferPolicy: transferPolicy, apiKeyPath: keyPath, apiBaseURL: apiBaseURL)
    }

    /// `stripe.prices` or `stripe.products`: Stripe ID → tenant product ID; empty when absent.
    private func stripeMapping(
        _ node: JSONNode?, path: String, kind: StripeSettings.MappingKind, mappedProducts: [String: [String]]
    ) throws(TenantConfigError) -> [String: String] {
        guard let node else { return [:] }
        let expected = switch kind {
        case .price: "an object of Stripe price ID → tenant product ID"
        case .product: "an object of Stripe product ID → tenant product ID"
        }
        guard case .object(let entries) = node.value else { throw typeMismatch(node, path, expected: expected) }
        var mapping: [String: String] = [:]
        for entry in entries {
            let entryPath = "\(path)[\"\(entry.key)\"]"
            let target = try string(entry.value, path: entryPath)
            try rule(entry.value, entryPath) { () throws(TenantRuleError) in
                try StripeSettings.checkMapping(kind, entry.key, to: target, mappedProducts: mappedProducts)
            }
            mapping[entry.key] = target
        }
        return mapping
    }
}
