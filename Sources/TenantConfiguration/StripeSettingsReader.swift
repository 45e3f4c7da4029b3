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

        let secrets = try requiredList(
            "webhook_secrets", of: members, in: node, at: path,
            "the signing secret (\"whsec_…\") of the Stripe webhook endpoint that "
                + "posts to this tenant (Stripe Dashboard → Developers → Webhooks → the endpoint → Signing secret)",
            count: { count throws(TenantRuleError) in try StripeSettings.checkWebhookSecretCount(count) }
        ) { secret, listed throws(TenantRuleError) in
            try StripeSettings.checkWebhookSecret(secret, listedAfter: listed)
            return secret
        }.elements

        let tolerance = try optionalNumber(
            "signature_tolerance_seconds", of: members, at: path, absent: StripeSettings.defaultSignatureToleranceSeconds
        ) { seconds, text throws(TenantRuleError) in
            try StripeSettings.checkSignatureToleranceSeconds(seconds, written: text)
        }

        let listed = try requiredNames(
            "environments", of: members, in: node, at: path,
            "list the Stripe modes whose events this tenant accepts (\"live\" for livemode true, \"test\" for "
                + "livemode false)",
            count: { count throws(TenantRuleError) in try StripeSettings.checkEnvironmentsListed(count: count) }
        ) { text throws(TenantRuleError) in try StripeEnvironmentName.named(text) }.elements

        let prices = try stripeMapping(
            members["prices"], path: path + ".prices", kind: .price, mappedProducts: mappedProducts)
        let products = try stripeMapping(
            members["products"], path: path + ".products", kind: .product, mappedProducts: mappedProducts)
        try rule(node, path) { () throws(TenantRuleError) in
            try StripeSettings.checkSomethingMapped(priceCount: prices.count, productCount: products.count)
        }

        let graceDays = try optionalNumber("past_due_grace_days", of: members, at: path, absent: 0) {
            days, text throws(TenantRuleError) in try StripeSettings.checkPastDueGraceDays(days, written: text)
        }
        let codeDays = try optionalNumber(
            "redemption_code_days", of: members, at: path, absent: StripeSettings.defaultRedemptionCodeDays
        ) { days, text throws(TenantRuleError) in
            try StripeSettings.checkRedemptionCodeDays(days, written: text)
        }
        let transferPolicy = try optionalTransferPolicy(of: members, at: path)
        let keyPath: String? = try optionalStringValue("api_key_file", of: members, at: path, absent: nil) {
            text throws(TenantRuleError) in try StripeSettings.apiKeyFile(text, against: directory)
        }
        let apiBaseURL = try optionalString(
            "api_base_url", of: members, at: path, absent: StripeSettings.defaultAPIBaseURL
        ) { text throws(TenantRuleError) in try StripeSettings.checkAPIBaseURL(text) }

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
