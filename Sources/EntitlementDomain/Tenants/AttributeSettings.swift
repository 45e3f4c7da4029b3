/// A tenant's `attributes` configuration: which customer attribute keys its apps and its backend may write.
///
///     "attributes": {                                   // optional
///       "app_keys": ["$email", "$displayName"],        // optional, default the reserved keys ($email, $displayName,
///                                                      // $phoneNumber, $locale); [] lets apps write none
///       "backend_keys": ["plan", "crm_id"]             // optional, default any key; when given, a secret key writes
///                                                      // these and app_keys only
///     }
///
/// Apps write with the public key, for the customer whose canonical app user ID they name; secret keys that may
/// write (scope WRITE), for any customer. Every key must be valid (``AttributeRules/keyProblem(_:)``); lists hold at
/// most ``AttributeRules/maxKeysPerCustomer`` keys, each once.
public struct AttributeSettings: Sendable, Hashable {
    public var appKeys: [String]
    /// nil: the backend may write any valid key.
    public var backendKeys: [String]?

    public static let defaults = AttributeSettings(appKeys: AttributeRules.reservedKeys, backendKeys: nil)

    public init(appKeys: [String], backendKeys: [String]?) {
        self.appKeys = appKeys
        self.backendKeys = backendKeys
    }

    /// Whether `writer` may write `key` (a valid key).
    public func allows(_ key: String, by writer: AttributeWriter) -> Bool {
        switch writer {
        case .app: appKeys.contains(key)
        case .backend: backendKeys.map { $0.contains(key) || appKeys.contains(key) } ?? true
        }
    }

    // MARK: Rules (errors are relative to the checked value; the tenants file reader and `validated` share them)

    /// These settings checked as a configured `attributes` would be. Error paths are relative to `attributes`.
    package func validated() throws(TenantRuleError) -> AttributeSettings {
        try TenantRuleError.at(".app_keys") { () throws(TenantRuleError) in try Self.checkKeys(appKeys) }
        if let backendKeys {
            try TenantRuleError.at(".backend_keys") { () throws(TenantRuleError) in try Self.checkKeys(backendKeys) }
        }
        return self
    }

    package static func checkKeys(_ keys: [String]) throws(TenantRuleError) {
        try checkKeyCount(keys.count)
        try ListRule.checkEach(keys) { key, before throws(TenantRuleError) in try checkKey(key, listedAfter: before) }
    }

    package static func checkKeyCount(_ count: Int) throws(TenantRuleError) {
        guard count <= AttributeRules.maxKeysPerCustomer else {
            throw TenantRuleError(
                .invalidValue, "expected at most \(AttributeRules.maxKeysPerCustomer) keys, found \(count)")
        }
    }

    package static func checkKey(_ key: String, listedAfter previous: [String]) throws(TenantRuleError) {
        if let problem = AttributeRules.keyProblem(key) { throw TenantRuleError(.invalidValue, problem) }
        try ListRule.checkNotListed(key, written: key, in: previous)
    }
}
