import BoundedText
public import EntitlementDomain
import FileAccess

/// Reads the tenant configuration file (path from the server configuration) into a ``TenantDirectory``.
///
/// The format (see `Config/tenants.example.json`):
///
///     {
///       "_comment": "optional, anywhere an object allows it: a string or an array of strings",
///       "tenants": [
///         {
///           "id": "demo",                                  // required; 1–64 of [a-z0-9_-], unique
///           "public_keys": ["pk_sha256:<64 hex>", ...],    // hashes of pk_ keys (entctl hash-key); may be empty
///           "secret_keys": ["sk_sha256:<64 hex>", ...],    // hashes of sk_ keys; may be empty, but not both
///                                  // each entry may also be {"hash": "sk_sha256:…", "name": "support-ana",
///                                  // "scope": "read"}: a name for logs and events, read-only (default "write")
///           "entitlements": ["pro", "premium"],            // optional; products' entitlements are declared too
///           "allow_undeclared_entitlements": false,        // optional, default false
///           "products": { "com.example.pro.monthly": ["pro"] },  // optional; product ID → entitlements
///           "app_store": { "bundle_id": "com.example.app", "environments": ["Sandbox"], ... }
///                                                          // optional; see ``AppStoreSettings``
///           "play_store": { "package_name": "com.example.app", "service_account_key_file": "play.json", ... }
///                                                          // optional; see ``PlayStoreSettings``
///           "stripe": { "webhook_secrets": ["whsec_..."], "environments": ["test"], "prices": {...}, ... }
///                                                          // optional; see ``StripeSettings``
///           "web": { "allowed_origins": ["https://app.example.com"] },  // optional; see ``BrowserSettings``
///           "webhooks": [{ "id": "backend", "url": "https://…", "secrets": ["whsec_…"] }],  // optional; see ``WebhookEndpoint``
///           "commission": { "app_store": { "percent": 15 } },  // optional; see ``Commissions``
///           "reporting_currency": { "currency": "USD", "exchange_rates_file": "rates.csv" },  // optional; see ``ExchangeRates``
///           "attributes": { "app_keys": ["$email"], "backend_keys": ["plan"] },  // optional; see ``AttributeSettings``
///           "privacy": { "erase_accounting_records": false },  // optional; see ``PrivacySettings``
///           "retention": { "event_days": 365 },  // optional; see ``RetentionSettings``
///           "user_tokens": { "mode": "required", "issuer": "https://…", "hs256_secrets": ["…"] }  // optional; see
///                                                          // ``UserTokenSettings``
///           "signed_status": { "keys": [{ "kid": "2026-12", "key_file": "status.pem" }] }  // optional; see
///                                                          // ``StatusSigningSettings``
///         }
///       ]
///     }
///
/// Anything else is an error: unknown fields (typos), repeated JSON keys, duplicate tenant IDs, a key hash listed
/// twice anywhere, a hash under the other kind's list, malformed values. A failed load changes nothing, so a
/// reload on SIGHUP keeps the old directory and logs the error's description.
public enum TenantConfigLoader {
    /// Loads and validates the file at `path`; errors name `path` as given.
    public static func load(path: String) throws(TenantConfigError) -> TenantDirectory {
        let bytes: [UInt8]
        switch FileSystem.readFile(path) {
        case .success(let contents): bytes = contents
        case .failure(let error):
            throw TenantConfigError(
                code: .unreadableFile, file: path, message: "cannot read the tenant configuration: \(error.reason)")
        }
        return try parse(bytes, file: path)
    }

    /// Validates a configuration held in memory; `file` is used in errors and, unless `directory` is given, its
    /// directory is the one relative paths in the configuration (`app_store.root_certificates`,
    /// `play_store.service_account_key_file`, `play_store.notifications.jwks_file`, `stripe.api_key_file`) are
    /// resolved against.
    public static func parse(_ bytes: [UInt8], file: String, directory: String? = nil) throws(TenantConfigError)
        -> TenantDirectory
    {
        let root: JSONNode
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            throw TenantConfigError(
                code: .malformedJSON, file: file, line: error.line, path: error.path,
                message: error.path == nil
                    ? "malformed JSON at column \(error.column): \(error.message)"
                    : "malformed JSON: \(error.message)")
        }
        var reader = TenantConfigReader(file: file, directory: directory)
        return try reader.directory(root)
    }
}

/// Turns parsed JSON into validated tenants, naming the JSON path (and line) of every problem.
struct TenantConfigReader {
    let file: String

    static let rootFields = ["tenants", "_comment"]
    static let tenantFields = [
        "id", "public_keys", "secret_keys", "entitlements", "allow_undeclared_entitlements", "products", "app_store",
        "play_store", "stripe", "web", "webhooks", "commission", "reporting_currency", "attributes", "privacy", "retention",
        "user_tokens", "signed_status", "_comment",
    ]

    /// Where each tenant's ID and key hashes were, for errors found across tenants.
    private var idLines: [Int?] = []
    private var keyLines: [[APIKey.Kind: [Int?]]] = []

    /// The absolute directory that relative paths in the file (`app_store.root_certificates`,
    /// `play_store.service_account_key_file`, ...) are resolved against.
    let directory: String

    /// - Parameter directory: nil for the directory of `file` (the working directory when `file` names none).
    init(file: String, directory: String? = nil) {
        self.file = file
        self.directory = FileSystem.resolve(
            directory ?? FileSystem.directoryName(file), against: FileSystem.currentDirectory())
    }

    mutating func directory(_ root: JSONNode) throws(TenantConfigError) -> TenantDirectory {
        let members = try object(root, path: "", allowed: Self.rootFields, what: "the top level")
        guard let tenantsNode = members["tenants"] else {
            throw error(.missingField, root, "", "missing \"tenants\": the file needs {\"tenants\": [...]}")
        }
        let tenantNodes = try array(tenantsNode, path: "tenants")
        if tenantNodes.isEmpty {
            throw error(.noTenants, tenantsNode, "tenants", "no tenants are configured; every API key would be refused")
        }
        var tenants: [Tenant] = []
        for (index, node) in tenantNodes.enumerated() {
            tenants.append(try tenant(node, path: "tenants[\(index)]"))
        }
        let idLines = idLines
        let keyLines = keyLines
        do {
            return try TenantDirectory(tenants: tenants)
        } catch {
            // Errors across tenants name `tenants[INDEX].id` or `tenants[INDEX].KIND[KEY]`: find that line.
            var line: Int?
            for (index, idLine) in idLines.enumerated() {
                if error.path == "tenants[\(index)].id" { line = idLine }
                for (kind, kindLines) in keyLines[index] {
                    for (keyIndex, keyLine) in kindLines.enumerated()
                    where error.path == "tenants[\(index)].\(kind.configField)[\(keyIndex)]" {
                        line = keyLine
                    }
                }
            }
            throw TenantConfigError(
                code: TenantConfigError.Code(error.code), file: file, line: line, path: error.path, message: error.message)
        }
    }

    mutating func tenant(_ node: JSONNode, path: String) throws(TenantConfigError) -> Tenant {
        let members = try object(node, path: path, allowed: Self.tenantFields, what: "a tenant")

        guard let idNode = members["id"] else { throw error(.missingField, node, path, "missing \"id\"") }
        let id = try string(idNode, path: path + ".id")
        try rule(idNode, path + ".id") { () throws(TenantRuleError) in try Tenant.checkID(id) }

        var keys: [APIKey.Kind: [TenantKey]] = [:]
        var lines: [APIKey.Kind: [Int?]] = [:]
        for kind in APIKey.Kind.allCases {
            let fieldPath = path + "." + kind.configField
            let nodes = try members[kind.configField].map { node throws(TenantConfigError) in try array(node, path: fieldPath) } ?? []
            for (index, keyNode) in nodes.enumerated() {
                let keyPath = "\(fieldPath)[\(index)]"
                let (key, named) = try tenantKey(keyNode, path: keyPath, kind: kind)
                // A name made from the hash is as unique as the hash, which the directory checks.
                if named {
                    try rule(keyNode, keyPath) { () throws(TenantRuleError) in
                        try TenantKey.checkNameUnused(key.name, by: keys.values.flatMap { $0 })
                    }
                }
                keys[kind, default: []].append(key)
                lines[kind, default: []].append(line(keyNode))
            }
        }
        try rule(node, path) { () throws(TenantRuleError) in
            try Tenant.checkHasKeys(id: id, keyCount: keys.values.map(\.count).reduce(0, +))
        }

        var listed: [String] = []
        if let listNode = members["entitlements"] {
            for (index, entitlementNode) in try array(listNode, path: path + ".entitlements").enumerated() {
                let entitlementPath = "\(path).entitlements[\(index)]"
                listed.append(try entitlementID(entitlementNode, path: entitlementPath, listedAfter: listed))
            }
        }

        var allowUndeclared = false
        if let flagNode = members["allow_undeclared_entitlements"] {
            guard case .bool(let flag) = flagNode.value else {
                throw typeMismatch(flagNode, path + ".allow_undeclared_entitlements", expected: "true or false")
            }
            allowUndeclared = flag
        }

        var products: [String: [String]] = [:]
        if let productsNode = members["products"] {
            guard case .object(let productMembers) = productsNode.value else {
                throw typeMismatch(productsNode, path + ".products", expected: "an object of product ID → entitlement IDs")
            }
            for member in productMembers {
                let productPath = "\(path).products[\"\(member.key)\"]"
                try rule(member.value, productPath) { () throws(TenantRuleError) in try Tenant.checkProductID(member.key) }
                var entitlements: [String] = []
                for (index, entitlementNode) in try array(member.value, path: productPath).enumerated() {
                    let entitlementPath = "\(productPath)[\(index)]"
                    entitlements.append(try entitlementID(entitlementNode, path: entitlementPath, listedAfter: entitlements))
                }
                try rule(member.value, productPath) { () throws(TenantRuleError) in
                    try Tenant.checkProductGivesEntitlements(member.key, entitlements)
                }
                products[member.key] = entitlements
            }
        }

        var appStore: AppStoreSettings?
        if let appStoreNode = members["app_store"] {
            appStore = try appStoreSettings(appStoreNode, path: path + ".app_store", mappedProducts: products)
        }

        var playStore: PlayStoreSettings?
        if let playStoreNode = members["play_store"] {
            playStore = try playStoreSettings(playStoreNode, path: path + ".play_store", mappedProducts: products)
        }

        var stripe: StripeSettings?
        if let stripeNode = members["stripe"] {
            stripe = try stripeSettings(stripeNode, path: path + ".stripe", mappedProducts: products)
        }

        let browser = try members["web"].map { node throws(TenantConfigError) in try browserSettings(node, path: path + ".web") }
        let webhooks = try members["webhooks"].map { node throws(TenantConfigError) in
            try webhookEndpoints(node, path: path + ".webhooks")
        } ?? []

        let commissions = try members["commission"].map { node throws(TenantConfigError) in
            try self.commissions(node, path: path + ".commission")
        } ?? .defaults

        let exchangeRates = try members["reporting_currency"].map { node throws(TenantConfigError) in
            try reportingCurrency(node, path: path + ".reporting_currency")
        }

        let attributes = try members["attributes"].map { node throws(TenantConfigError) in
            try attributeSettings(node, path: path + ".attributes")
        } ?? .defaults

        let privacy = try members["privacy"].map { node throws(TenantConfigError) in
            try privacySettings(node, path: path + ".privacy")
        } ?? .defaults

        let retention = try members["retention"].map { node throws(TenantConfigError) in
            try retentionSettings(node, path: path + ".retention")
        } ?? .defaults

        let userTokens = try members["user_tokens"].map { node throws(TenantConfigError) in
            try userTokenSettings(node, path: path + ".user_tokens")
        } ?? .off

        let signedStatus = try members["signed_status"].map { node throws(TenantConfigError) in
            try statusSigningSettings(node, path: path + ".signed_status")
        }

        idLines.append(line(idNode))
        keyLines.append(lines)
        return Tenant(
            id: id, publicKeys: keys[.publicKey] ?? [], secretKeys: keys[.secretKey] ?? [],
            listedEntitlements: listed, allowUndeclaredEntitlements: allowUndeclared, products: products,
            appStore: appStore, playStore: playStore, stripe: stripe, browser: browser, webhooks: webhooks,
            commissions: commissions, exchangeRates: exchangeRates, attributes: attributes,
            privacy: privacy, retention: retention, userTokens: userTokens,
            signedStatus: signedStatus)
    }

    // MARK: Values

    static let keyFields = ["hash", "name", "scope", "_comment"]

    /// A key: its hash string alone, or `{"hash": ..., "name": ..., "scope": "read" | "write"}` (a scope only for
    /// a secret key; without one it may do everything).
    private func tenantKey(_ node: JSONNode, path: String, kind: APIKey.Kind) throws(TenantConfigError)
        -> (key: TenantKey, named: Bool)
    {
        if case .string(let text) = node.value {
            return (TenantKey(kind: kind, digest: try digest(text, node, path: path, kind: kind)), false)
        }
        guard case .object = node.value else {
            throw typeMismatch(node, path, expected: "a key hash string, or an object with \"hash\", \"name\" and \"scope\"")
        }
        let members = try object(node, path: path, allowed: Self.keyFields, what: "a key")
        guard let hashNode = members["hash"] else { throw error(.missingField, node, path, "missing \"hash\"") }
        let digest = try digest(try string(hashNode, path: path + ".hash"), hashNode, path: path + ".hash", kind: kind)
        var name: String?
        if let nameNode = members["name"] {
            let text = try string(nameNode, path: path + ".name")
            try rule(nameNode, path + ".name") { () throws(TenantRuleError) in try TenantKey.checkName(text) }
            name = text
        }
        var scope = APIKey.Scope.write
        if let scopeNode = members["scope"] {
            let scopePath = path + ".scope"
            guard kind == .secretKey else {
                throw error(
                    .invalidValue, scopeNode, scopePath,
                    "only secret keys have a scope; a public key may call EntitlementService and nothing else")
            }
            let text = try string(scopeNode, path: scopePath)
            guard let parsed = APIKey.Scope(rawValue: text) else {
                throw error(.invalidValue, scopeNode, scopePath, "scope must be \"read\" or \"write\"")
            }
            scope = parsed
        }
        return (TenantKey(kind: kind, digest: digest, name: name, scope: scope), name != nil)
    }

    private func digest(_ text: String, _ node: JSONNode, path: String, kind: APIKey.Kind) throws(TenantConfigError)
        -> [UInt8]
    {
        try rule(node, path) { () throws(TenantRuleError) in try APIKey.digest(ofHashString: text, listedAs: kind) }
    }

    private func entitlementID(_ node: JSONNode, path: String, listedAfter previous: [String]) throws(TenantConfigError)
        -> String
    {
        let id = try string(node, path: path)
        try rule(node, path) { () throws(TenantRuleError) in try Tenant.checkEntitlement(id, listedAfter: previous) }
        return id
    }

    // MARK: Types

    /// An object's members by key, after refusing unknown ones; `_comment` must be a string or array of strings.
    func object(_ node: JSONNode, path: String, allowed: [String], what: String) throws(TenantConfigError)
        -> [String: JSONNode]
    {
        guard case .object(let members) = node.value else {
            throw typeMismatch(node, path, expected: "an object")
        }
        var byKey: [String: JSONNode] = [:]
        for member in members {
            let memberPath = path.isEmpty ? member.key : path + "." + member.key
            guard allowed.contains(member.key) else {
                var message = "unknown field \"\(member.key)\" in \(what)"
                if let suggestion = Self.suggestion(for: member.key, among: allowed) {
                    message += "; did you mean \"\(suggestion)\"?"
                } else {
                    message += "; known fields: " + allowed.map { "\"\($0)\"" }.joined(separator: ", ")
                }
                throw error(.unknownField, member.value, memberPath, message)
            }
            if member.key == "_comment" {
                switch member.value.value {
                case .string: break
                case .array(let lines) where lines.allSatisfy({ if case .string = $0.value { true } else { false } }): break
                default: throw typeMismatch(member.value, memberPath, expected: "a string or an array of strings")
                }
            }
            byKey[member.key] = member.value
        }
        return byKey
    }

    func array(_ node: JSONNode, path: String) throws(TenantConfigError) -> [JSONNode] {
        guard case .array(let elements) = node.value else { throw typeMismatch(node, path, expected: "an array") }
        return elements
    }

    func string(_ node: JSONNode, path: String) throws(TenantConfigError) -> String {
        guard case .string(let text) = node.value else { throw typeMismatch(node, path, expected: "a string") }
        return text
    }

    /// A number's text, as written.
    func number(_ node: JSONNode, path: String) throws(TenantConfigError) -> String {
        guard case .number(let text) = node.value else { throw typeMismatch(node, path, expected: "a number") }
        return text
    }

    func typeMismatch(_ node: JSONNode, _ path: String, expected: String) -> TenantConfigError {
        error(.typeMismatch, node, path, "expected \(expected), found \(node.typeDescription)")
    }

    func line(_ node: JSONNode) -> Int? {
        node.line
    }

    /// Runs one of the domain's rules on the value at `node` (`path`): its error gains the file, the line (of `node`,
    /// or of the node `nodes` gives for the error's relative path) and the path.
    func rule<T>(
        _ node: JSONNode, _ path: String, nodes: [String: JSONNode] = [:], _ body: () throws(TenantRuleError) -> T
    ) throws(TenantConfigError) -> T {
        do {
            return try body()
        } catch {
            throw self.error(TenantConfigError.Code(error.code), nodes[error.path] ?? node, path + error.path, error.message)
        }
    }

    func error(_ code: TenantConfigError.Code, _ node: JSONNode, _ path: String, _ message: String)
        -> TenantConfigError
    {
        TenantConfigError(code: code, file: file, line: line(node), path: path, message: message)
    }

    /// The allowed field closest to a misspelt one (edit distance at most 2, or differing only in a plural s).
    static func suggestion(for field: String, among allowed: [String]) -> String? {
        let candidates = allowed.map { ($0, editDistance(field.lowercased(), $0)) }.filter { $0.1 <= 2 }
        return candidates.min { $0.1 < $1.1 }?.0
    }
}
