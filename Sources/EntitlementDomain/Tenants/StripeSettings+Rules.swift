import FileAccess

extension StripeEnvironmentName: ConfiguredName {
    package static let nameKind = "Stripe environment"

    package static func note(on text: String) -> String? {
        if let spelling = spelling(of: text) { return spelling }
        let lowered = text.lowercased()
        if ["production", "livemode"].contains(lowered) { return "events with livemode true are \"live\"" }
        // "sandbox" is the App Store's word for it; Stripe's sandboxes send livemode false.
        if ["sandbox", "testmode"].contains(lowered) { return "test-mode and sandbox events, livemode false, are \"test\"" }
        return nil
    }
}

// MARK: Rules (errors are relative to the checked value; the tenants file reader and `validated` share them)

extension StripeSettings {
    /// Stripe's webhook signing secrets start with this; the whole string, prefix included, is the HMAC key.
    public static let webhookSecretPrefix = "whsec_"
    /// The fewest characters after ``webhookSecretPrefix`` (Stripe's have 32).
    public static let minWebhookSecretBodyLength = 16
    /// The longest webhook secret accepted, prefix included.
    public static let maxWebhookSecretLength = 256
    /// The largest API key file read (a key is about 110 bytes).
    public static let maxAPIKeyFileBytes = 1024
    /// The prefixes of the keys that may read objects: secret keys and restricted keys, live or test.
    public static let apiKeyPrefixes = ["sk_live_", "sk_test_", "rk_live_", "rk_test_"]
    /// The fewest characters after an API key's prefix.
    public static let minAPIKeyBodyLength = 16

    /// These settings checked as a configured `stripe` would be, with ``apiKeyPath`` resolved against `directory`
    /// (made absolute). `mappedProducts` is the tenant's `products`. Error paths are relative to `stripe`.
    package func validated(mappedProducts: [String: [String]], directory: String) throws(TenantRuleError)
        -> StripeSettings
    {
        var settings = self
        try TenantRuleError.at(".webhook_secrets") { () throws(TenantRuleError) in
            try Self.checkWebhookSecretCount(webhookSecrets.count)
            try ListRule.checkEach(webhookSecrets) { secret, before throws(TenantRuleError) in
                try Self.checkWebhookSecret(secret, listedAfter: before)
            }
        }
        try TenantRuleError.at(".signature_tolerance_seconds") { () throws(TenantRuleError) in
            _ = try Self.checkSignatureToleranceSeconds(
                signatureToleranceSeconds, written: String(signatureToleranceSeconds))
        }
        try TenantRuleError.at(".environments") { () throws(TenantRuleError) in
            try Self.checkEnvironmentsListed(count: environments.count)
        }
        for (field, mapping, kind) in [("prices", prices, MappingKind.price), ("products", products, .product)] {
            try TenantRuleError.at(".\(field)") { () throws(TenantRuleError) in
                for id in mapping.keys.sorted() {
                    try TenantRuleError.at("[\"\(id)\"]") { () throws(TenantRuleError) in
                        try Self.checkMapping(kind, id, to: mapping[id]!, mappedProducts: mappedProducts)
                    }
                }
            }
        }
        try Self.checkSomethingMapped(priceCount: prices.count, productCount: products.count)
        try TenantRuleError.at(".past_due_grace_days") { () throws(TenantRuleError) in
            _ = try Self.checkPastDueGraceDays(pastDueGraceDays, written: String(pastDueGraceDays))
        }
        try TenantRuleError.at(".redemption_code_days") { () throws(TenantRuleError) in
            _ = try Self.checkRedemptionCodeDays(redemptionCodeDays, written: String(redemptionCodeDays))
        }
        if let apiKeyPath {
            settings.apiKeyPath = try TenantRuleError.at(".api_key_file") { () throws(TenantRuleError) in
                try Self.apiKeyFile(apiKeyPath, against: directory)
            }
        }
        try TenantRuleError.at(".api_base_url") { () throws(TenantRuleError) in try Self.checkAPIBaseURL(apiBaseURL) }
        return settings
    }

    /// 1–5 webhook secrets: one per endpoint, more only while rolling.
    package static func checkWebhookSecretCount(_ count: Int) throws(TenantRuleError) {
        try ListRule.checkNotEmpty(
            count: count,
            "no webhook secrets are listed, so every webhook would be refused; list the endpoint's signing secret "
                + "(Stripe Dashboard → Developers → Webhooks → the endpoint → Signing secret)")
        if !webhookSecretCountRange.contains(count) {
            throw TenantRuleError(
                .invalidValue,
                "\(count) webhook secrets are listed; the limit is \(webhookSecretCountRange.upperBound) (list several "
                    + "only while rolling an endpoint's secret, then remove the old one)")
        }
    }

    /// One webhook signing secret: `whsec_` followed by 16 or more of `[A-Za-z0-9]`, at most 256 characters in all,
    /// not among `previous`. No message quotes the secret or any part of it.
    package static func checkWebhookSecret(_ secret: String, listedAfter previous: [String]) throws(TenantRuleError) {
        let rule = "a webhook signing secret is \"\(webhookSecretPrefix)\" followed by at least "
            + "\(minWebhookSecretBodyLength) letters and digits, copied whole from the endpoint's \"Signing secret\""
        if secret.isEmpty { throw TenantRuleError(.invalidValue, "the webhook secret is empty; \(rule)") }
        guard secret.hasPrefix(webhookSecretPrefix) else {
            var message = "the webhook secret does not start with \"\(webhookSecretPrefix)\"; \(rule)"
            if apiKeyPrefixes.contains(where: secret.hasPrefix) || secret.hasPrefix("pk_") {
                message += " (this looks like an API key, which belongs in \"api_key_file\", never in this file)"
            }
            throw TenantRuleError(.invalidValue, message)
        }
        if secret.utf8.count > maxWebhookSecretLength {
            throw TenantRuleError(
                .invalidValue,
                "the webhook secret is \(secret.utf8.count) bytes long; the limit is \(maxWebhookSecretLength)")
        }
        let body = secret.unicodeScalars.dropFirst(webhookSecretPrefix.count)
        if let offset = body.firstIndex(where: { !isLetterOrDigit($0) }).map({ body.distance(from: body.startIndex, to: $0) }) {
            let what = AppUserID.isWhitespace(body[body.index(body.startIndex, offsetBy: offset)])
                ? "whitespace" : "a character other than A-Z, a-z and 0-9"
            throw TenantRuleError(
                .invalidValue,
                "the webhook secret has \(what) at position \(webhookSecretPrefix.count + offset + 1); \(rule)")
        }
        if body.count < minWebhookSecretBodyLength {
            throw TenantRuleError(
                .invalidValue,
                "the webhook secret has \(body.count) characters after \"\(webhookSecretPrefix)\"; \(rule)")
        }
        if let index = previous.firstIndex(of: secret) {
            throw TenantRuleError(.duplicateEntry, "the same webhook secret is listed at [\(index)] already")
        }
    }

    /// `[A-Za-z0-9]`.
    private static func isLetterOrDigit(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9": true
        default: false
        }
    }

    /// `value` is nil when `text` is not a whole number.
    package static func checkSignatureToleranceSeconds(_ value: Int?, written text: String) throws(TenantRuleError)
        -> Int
    {
        try ListRule.wholeNumber(value, written: text, in: signatureToleranceSecondsRange, unit: "seconds")
    }

    /// At least one environment is accepted.
    package static func checkEnvironmentsListed(count: Int) throws(TenantRuleError) {
        try ListRule.checkNotEmpty(
            count: count,
            "no environments are listed, so every event would be refused; list \"live\" (livemode true), "
                + "\"test\" (livemode false) or both, or remove \"stripe\"")
    }

    /// Which Stripe object a mapping's key names.
    package enum MappingKind: Sendable {
        case price
        case product

        var word: String {
            switch self {
            case .price: "price"
            case .product: "product"
            }
        }
    }

    /// One `prices` or `products` entry: a Stripe ID (checked as ``Tenant/checkProductID(_:)`` checks IDs) mapped
    /// to a product of the tenant's `products` (`mappedProducts`).
    package static func checkMapping(
        _ kind: MappingKind, _ stripeID: String, to target: String, mappedProducts: [String: [String]]
    ) throws(TenantRuleError) {
        do {
            try Tenant.checkProductID(stripeID)
        } catch {
            throw TenantRuleError(error.code, at: error.path, "the Stripe \(kind.word) ID: " + error.message)
        }
        do {
            try Tenant.checkProductID(target)
        } catch {
            throw TenantRuleError(error.code, at: error.path, "the tenant product it maps to: " + error.message)
        }
        if mappedProducts[target] == nil {
            throw TenantRuleError(
                .unmappedProduct,
                "Stripe \(kind.word) \"\(stripeID)\" maps to \"\(target)\", which is not in the tenant's \"products\", "
                    + "so a purchase of it would grant nothing; add \"\(target)\" there with its entitlements")
        }
    }

    /// At least one of `prices` and `products` maps something: otherwise no web purchase could grant anything.
    package static func checkSomethingMapped(priceCount: Int, productCount: Int) throws(TenantRuleError) {
        if priceCount == 0 && productCount == 0 {
            throw TenantRuleError(
                .missingField,
                "neither \"prices\" nor \"products\" maps anything, so no web purchase would grant anything; map "
                    + "Stripe price IDs (\"price_…\") or product IDs (\"prod_…\") to products of the tenant's "
                    + "\"products\"")
        }
    }

    /// `value` is nil when `text` is not a whole number.
    package static func checkPastDueGraceDays(_ value: Int?, written text: String) throws(TenantRuleError) -> Int {
        try ListRule.wholeNumber(value, written: text, in: pastDueGraceDaysRange, unit: "days")
    }

    /// `value` is nil when `text` is not a whole number.
    package static func checkRedemptionCodeDays(_ value: Int?, written text: String) throws(TenantRuleError) -> Int {
        try ListRule.wholeNumber(value, written: text, in: redemptionCodeDaysRange, unit: "days")
    }

    /// The API key file's absolute path (`text` resolved against `directory`), once it is a readable regular file of
    /// at most ``maxAPIKeyFileBytes`` holding one secret or restricted key (surrounding whitespace ignored). The key
    /// is left in the file; no error quotes it.
    package static func apiKeyFile(_ text: String, against directory: String) throws(TenantRuleError) -> String {
        if text.isEmpty { throw TenantRuleError(.invalidValue, "the API key file path is empty") }
        let path = FileSystem.resolve(text, against: directory)
        // A device or a pipe (/dev/zero, /dev/stdin) could be read forever; readFile explains the other kinds.
        if FileSystem.kind(of: path) == .other {
            throw TenantRuleError(.unreadableKeyFile, "cannot read API key file \"\(path)\": it is not a regular file")
        }
        let bytes: [UInt8]
        switch FileSystem.readFile(path) {
        case .failure(let error):
            throw TenantRuleError(.unreadableKeyFile, "cannot read API key file \"\(path)\": \(error.reason)")
        case .success(let contents): bytes = contents
        }
        if bytes.count > maxAPIKeyFileBytes {
            throw TenantRuleError(
                .unreadableKeyFile,
                "API key file \"\(path)\" is \(bytes.count) bytes long, more than a key file can be "
                    + "(\(maxAPIKeyFileBytes / 1024) KiB)")
        }
        if let problem = apiKeyProblem(bytes) {
            throw TenantRuleError(
                .unreadableKeyFile,
                "API key file \"\(path)\" does not hold a Stripe API key: \(problem); put one secret key "
                    + "(\"sk_live_…\", \"sk_test_…\") or restricted key (\"rk_live_…\", \"rk_test_…\") in it, alone")
        }
        return path
    }

    /// What is wrong with an API key file's contents, or nil. Never quotes them.
    package static func apiKeyProblem(_ bytes: [UInt8]) -> String? {
        let isSpace: (UInt8) -> Bool = { [0x20, 0x09, 0x0A, 0x0D].contains($0) }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) })
        else { return bytes.isEmpty ? "the file is empty" : "the file holds only whitespace" }
        let key = bytes[first...last]
        guard let prefix = apiKeyPrefixes.first(where: { key.starts(with: Array($0.utf8)) }) else {
            if key.starts(with: Array("pk_".utf8)) { return "it holds a publishable key, which cannot read objects" }
            if key.starts(with: Array(webhookSecretPrefix.utf8)) {
                return "it holds a webhook signing secret, which belongs in \"webhook_secrets\""
            }
            return "it does not start with \"sk_live_\", \"sk_test_\", \"rk_live_\" or \"rk_test_\""
        }
        let body = key.dropFirst(prefix.utf8.count)
        if body.contains(where: isSpace) { return "it holds more than one word" }
        if !body.allSatisfy({ $0 < 0x80 && isLetterOrDigit(Unicode.Scalar($0)) }) {
            return "it has a character other than A-Z, a-z and 0-9 after \"\(prefix)\""
        }
        if body.count < minAPIKeyBodyLength {
            return "it has \(body.count) characters after \"\(prefix)\"; a key has at least \(minAPIKeyBodyLength)"
        }
        return nil
    }

    /// Stripe's API base URL: see ``PlayStoreSettings/checkServiceURL(_:)``.
    package static func checkAPIBaseURL(_ text: String) throws(TenantRuleError) {
        try PlayStoreSettings.checkServiceURL(text)
    }
}
