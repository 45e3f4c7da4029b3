public import EntitlementDomain

/// A tenant configuration that cannot be used, located as precisely as possible.
///
/// The description reads `FILE:LINE: PATH: what is wrong`, e.g.
/// `Config/tenants.json:14: tenants[1].secret_keys[0]: expected "sk_sha256:" followed by 64 hex digits`.
/// Parts that do not apply (no line for an unreadable file, no path for malformed JSON) are left out.
/// Messages never repeat a configured key or hash value.
public struct TenantConfigError: Error, CustomStringConvertible, Sendable, Equatable {
    /// A stable, machine-readable kind; tests and tooling match on it, never on the message.
    public enum Code: String, Sendable, CaseIterable {
        /// The file could not be read.
        case unreadableFile = "unreadable_file"
        /// Not JSON (or not UTF-8), including a key repeated within one object.
        case malformedJSON = "malformed_json"
        /// A field this version does not know: most likely a typo, which must not pass silently.
        case unknownField = "unknown_field"
        case missingField = "missing_field"
        /// The value has the wrong JSON type (a string where an array belongs, ...).
        case typeMismatch = "type_mismatch"
        /// The value has the right type but is not acceptable (a bad tenant ID, entitlement ID, hash format, ...).
        case invalidValue = "invalid_value"
        /// `tenants` is empty.
        case noTenants = "no_tenants"
        /// A tenant with neither public nor secret keys.
        case noKeys = "no_keys"
        case duplicateTenant = "duplicate_tenant"
        /// The same key hash twice, within one tenant or across tenants.
        case duplicateKeyHash = "duplicate_key_hash"
        /// The same value twice in a list (an entitlement, a product's entitlement).
        case duplicateEntry = "duplicate_entry"
        /// A `pk_sha256:` hash under `secret_keys`, or an `sk_sha256:` hash under `public_keys`.
        case keyKindMismatch = "key_kind_mismatch"
        /// `app_store.environments` accepts Xcode or LocalTesting data together with Production.
        case conflictingEnvironments = "conflicting_environments"
        /// An `app_store.root_certificates` file (or the default next to the tenants file) cannot be read.
        case unreadableCertificate = "unreadable_certificate"
        /// An `app_store.products` or `play_store.products` entry that would grant entitlements has no entry in the
        /// tenant's `products`, or a `stripe.prices` or `stripe.products` entry maps to a product not there.
        case unmappedProduct = "unmapped_product"
        /// A `play_store.service_account_key_file`, `play_store.notifications.jwks_file` or `stripe.api_key_file`
        /// cannot be read or is not shaped as that kind of file.
        case unreadableKeyFile = "unreadable_key_file"
        /// Two fields of which at most one may be given (`jwks_url` and `jwks_file`).
        case conflictingFields = "conflicting_fields"
        /// A `reporting_currency.exchange_rates_file` that cannot be read, or a row of it that is not a rate.
        case invalidExchangeRates = "invalid_exchange_rates"

        /// The code of the domain rule a value broke (the two share names and raw values).
        public init(_ rule: TenantRuleError.Code) {
            self = Code(rawValue: rule.rawValue)!
        }
    }

    public var code: Code
    /// The file as the caller named it.
    public var file: String
    /// 1-based line of the offending value, when known.
    public var line: Int?
    /// JSON path of the offending value, such as `tenants[1].secret_keys[0]`.
    public var path: String?
    /// What is wrong, without the location prefix.
    public var message: String

    public init(code: Code, file: String, line: Int? = nil, path: String? = nil, message: String) {
        self.code = code
        self.file = file
        self.line = line
        self.path = path
        self.message = message
    }

    public var description: String {
        var text = file
        if let line { text += ":\(line)" }
        text += ": "
        if let path, !path.isEmpty { text += path + ": " }
        return text + message
    }
}
