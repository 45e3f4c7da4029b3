import Crypto
import FileAccess

/// How a tenant calls the App Store Server API (`app_store.server_api`): its In-App Purchase key from App Store
/// Connect (Users and Access → Integrations → In-App Purchase) and Apple's hosts, which tests point at a local fake.
///
///     "server_api": {
///       "key_file": "SubscriptionKey_2X9R4HXF34.p8",              // required; relative to the tenants file
///       "key_id": "2X9R4HXF34",                                   // required: the key's ID (10 of A-Z, 0-9)
///       "issuer_id": "57246542-96fe-1a63-e053-0824d011072a",      // required: the team's issuer ID (a UUID)
///       "production_url": "https://api.storekit.apple.com",       // optional, Apple's by default
///       "sandbox_url": "https://api.storekit-sandbox.apple.com",  // optional, Apple's by default
///       "restore_consults_history": true,                         // optional, false by default
///       "reconcile_minutes": 360                                  // optional, 360 by default; 0: never on its own
///     }
///
/// The key is read when the tenant loads, to refuse a file that is not one; no error ever quotes it.
public struct AppStoreServerAPISettings: Sendable, Hashable {
    public static let defaultProductionURL = "https://api.storekit.apple.com"
    public static let defaultSandboxURL = "https://api.storekit-sandbox.apple.com"

    /// Absolute path of the `.p8` file once validated.
    public var keyFilePath: String
    public var keyID: String
    public var issuerID: String
    public var productionURL: String
    public var sandboxURL: String
    /// A `Restore` with signed transactions also reads the customer's transaction history from Apple, so it never
    /// misses a refund or a purchase the device does not know of.
    public var restoreConsultsHistory: Bool
    /// How often Apple's notification history is read for notifications Apple failed to deliver (at startup, then
    /// every so many minutes); 0: only on demand.
    public var reconcileMinutes: Int
    public static let defaultReconcileMinutes = 360

    public init(
        keyFilePath: String, keyID: String, issuerID: String, productionURL: String = Self.defaultProductionURL,
        sandboxURL: String = Self.defaultSandboxURL, restoreConsultsHistory: Bool = false,
        reconcileMinutes: Int = Self.defaultReconcileMinutes
    ) {
        self.keyFilePath = keyFilePath
        self.keyID = keyID
        self.issuerID = issuerID
        self.productionURL = productionURL
        self.sandboxURL = sandboxURL
        self.restoreConsultsHistory = restoreConsultsHistory
        self.reconcileMinutes = reconcileMinutes
    }

    // MARK: Rules (errors are relative to the checked value; the tenants file reader and `validated` share them)

    /// These settings checked as a configured `server_api` would be; error paths are relative to it.
    package func validated(directory: String) throws(TenantRuleError) -> AppStoreServerAPISettings {
        var settings = self
        settings.keyFilePath = try TenantRuleError.at(".key_file") { () throws(TenantRuleError) in
            try Self.keyFile(keyFilePath, against: directory)
        }
        try TenantRuleError.at(".key_id") { () throws(TenantRuleError) in try Self.checkKeyID(keyID) }
        try TenantRuleError.at(".issuer_id") { () throws(TenantRuleError) in try Self.checkIssuerID(issuerID) }
        try TenantRuleError.at(".production_url") { () throws(TenantRuleError) in try Self.checkHostURL(productionURL) }
        try TenantRuleError.at(".sandbox_url") { () throws(TenantRuleError) in try Self.checkHostURL(sandboxURL) }
        _ = try TenantRuleError.at(".reconcile_minutes") { () throws(TenantRuleError) in
            try Self.checkReconcileMinutes(reconcileMinutes, written: String(reconcileMinutes))
        }
        return settings
    }

    /// The key file's absolute path once it holds an unencrypted P-256 private key in PEM.
    package static func keyFile(_ text: String, against directory: String) throws(TenantRuleError) -> String {
        if text.isEmpty { throw TenantRuleError(.invalidValue, "the key file path is empty") }
        let resolved = FileSystem.resolve(text, against: directory)
        let bytes = try PlayStoreSettings.keyFileBytes(resolved, what: "In-App Purchase key file")
        do throws(CryptoError) {
            _ = try P256.PrivateKey(pemRepresentation: String(decoding: bytes, as: UTF8.self))
        } catch {
            throw TenantRuleError(
                .unreadableKeyFile,
                "\"\(resolved)\" is not an In-App Purchase key: expected the .p8 file App Store Connect gives "
                    + "(a P-256 private key, \"-----BEGIN PRIVATE KEY-----\")")
        }
        return resolved
    }

    /// From 0 (only on demand) to a week.
    package static func checkReconcileMinutes(_ value: Int?, written text: String) throws(TenantRuleError) -> Int {
        try ListRule.wholeNumber(value, written: text, in: 0...10_080, unit: "minutes")
    }

    /// Ten capital letters and digits, as App Store Connect shows key IDs.
    package static func checkKeyID(_ id: String) throws(TenantRuleError) {
        guard id.utf8.count == 10, id.utf8.allSatisfy({ (0x41...0x5A).contains($0) || (0x30...0x39).contains($0) }) else {
            throw TenantRuleError(.invalidValue, "the key ID is 10 capital letters and digits, such as \"2X9R4HXF34\"")
        }
    }

    /// A UUID (8-4-4-4-12 hexadecimal digits), as App Store Connect shows the issuer ID.
    package static func checkIssuerID(_ id: String) throws(TenantRuleError) {
        let groups = id.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.map(\.utf8.count) == [8, 4, 4, 4, 12],
            groups.allSatisfy({ $0.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0 | 0x20) } })
        else {
            throw TenantRuleError(
                .invalidValue, "the issuer ID is a UUID, such as \"57246542-96fe-1a63-e053-0824d011072a\"")
        }
    }

    /// An https origin (http only to a loopback host), with no path: the API's paths are added to it.
    package static func checkHostURL(_ url: String) throws(TenantRuleError) {
        try PlayStoreSettings.checkServiceURL(url, allowingQuery: false, allowingPlainHTTP: false)
        let afterScheme = url.split(separator: "://", maxSplits: 1).last ?? ""
        if let slash = afterScheme.firstIndex(of: "/"), afterScheme[slash...] != "/" {
            throw TenantRuleError(.invalidValue, "the URL names a host only (such as \(defaultProductionURL)), no path")
        }
    }
}
