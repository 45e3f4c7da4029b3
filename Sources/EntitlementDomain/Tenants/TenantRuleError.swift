/// A tenant value the domain's rules refuse: which field, which rule, and what is wrong.
///
/// Thrown by ``Tenant/init(id:publicKeyHashes:secretKeyHashes:entitlements:allowUndeclaredEntitlements:products:appStore:playStore:stripe:browser:webhooks:commissions:exchangeRates:attributes:privacy:retention:)``
/// (paths start at `tenant`), by ``TenantDirectory/init(tenants:)`` (paths start at `tenants[INDEX]`) and by each
/// rule function, whose paths are relative to the value it checks (`""` for the value itself, `.duration_days`,
/// `[1]`), so that a reader of the tenants file can prefix its own path and add the file and line.
/// The description of an error from a value built in code reads `<memory>: PATH: what is wrong`.
/// Messages never repeat a configured key or hash value.
public struct TenantRuleError: Error, CustomStringConvertible, Sendable, Equatable {
    /// Which rule; the same names (and raw values) as the tenants file's error codes.
    public enum Code: String, Sendable, CaseIterable {
        /// A field a rule requires given the others (`app_apple_id` with Production, `duration_days` for non_renewing).
        case missingField = "missing_field"
        /// Not acceptable (a bad tenant ID, entitlement ID, hash format, bundle ID, ...).
        case invalidValue = "invalid_value"
        /// A tenant with neither public nor secret keys.
        case noKeys = "no_keys"
        case duplicateTenant = "duplicate_tenant"
        /// The same key hash twice, within one tenant or across tenants.
        case duplicateKeyHash = "duplicate_key_hash"
        /// The same value twice in a list (an entitlement, a product's entitlement, an environment, a root).
        case duplicateEntry = "duplicate_entry"
        /// A `pk_sha256:` hash under `secret_keys`, or an `sk_sha256:` hash under `public_keys`.
        case keyKindMismatch = "key_kind_mismatch"
        /// Xcode or LocalTesting data accepted together with Production.
        case conflictingEnvironments = "conflicting_environments"
        /// A root certificate file that cannot be read or holds no certificate.
        case unreadableCertificate = "unreadable_certificate"
        /// A store product that would grant entitlements (or a Stripe price or product's target) has no entry in the
        /// tenant's `products`.
        case unmappedProduct = "unmapped_product"
        /// A key file (Google Play's service-account key, a JWKS file, Stripe's API key file) that cannot be read or
        /// is not shaped as one.
        case unreadableKeyFile = "unreadable_key_file"
        /// Two fields of which at most one may be given (`jwks_url` and `jwks_file`).
        case conflictingFields = "conflicting_fields"
        /// A `reporting_currency.exchange_rates_file` that cannot be read, or a row of it that is not a rate.
        case invalidExchangeRates = "invalid_exchange_rates"
    }

    public var code: Code
    /// Where the refused value is, as a configuration path (`tenant.app_store.environments[1]`,
    /// `tenants[1].secret_keys[0]`), relative to the checked value for a rule function.
    public var path: String
    /// What is wrong, without the location.
    public var message: String

    public init(_ code: Code, at path: String = "", _ message: String) {
        self.code = code
        self.path = path
        self.message = message
    }

    public var description: String {
        "<memory>: " + (path.isEmpty ? "" : path + ": ") + message
    }

    /// Runs `body`, prefixing `prefix` to the path of any error it throws.
    package static func at<T>(_ prefix: String, _ body: () throws(TenantRuleError) -> T) throws(TenantRuleError) -> T {
        do {
            return try body()
        } catch {
            throw TenantRuleError(error.code, at: prefix + error.path, error.message)
        }
    }
}

/// The list rule every configured list shares: a value may appear once.
package enum ListRule {
    /// Throws `duplicateEntry` when `value` is already among `previous` (the list's entries before it).
    package static func checkNotListed<T: Equatable>(_ value: T, written text: String, in previous: [T])
        throws(TenantRuleError)
    {
        if previous.contains(value) { throw TenantRuleError(.duplicateEntry, "\"\(text)\" is listed twice") }
    }

    /// Runs `check` on each of `values` given the values before it; an error's path starts with the index (`[1]`).
    package static func checkEach<T>(_ values: [T], _ check: (T, [T]) throws(TenantRuleError) -> Void)
        throws(TenantRuleError)
    {
        for (index, value) in values.enumerated() {
            try TenantRuleError.at("[\(index)]") { () throws(TenantRuleError) in
                try check(value, Array(values[..<index]))
            }
        }
    }

    /// A list that must hold something: `message` says why an empty one is refused and what to list.
    package static func checkNotEmpty(count: Int, _ message: @autoclosure () -> String) throws(TenantRuleError) {
        if count == 0 { throw TenantRuleError(.invalidValue, message()) }
    }

    /// A whole number within `range`; `value` is nil when `text` is not a whole number `Int` can hold.
    package static func wholeNumber(_ value: Int?, written text: String, in range: ClosedRange<Int>, unit: String)
        throws(TenantRuleError) -> Int
    {
        guard let value, range.contains(value) else {
            throw TenantRuleError(
                .invalidValue,
                "expected a whole number of \(unit) from \(range.lowerBound) to \(range.upperBound), found \(text)")
        }
        return value
    }
}
