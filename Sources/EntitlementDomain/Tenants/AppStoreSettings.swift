public import Crypto
import FileAccess

/// An App Store environment a tenant may accept, spelt as Apple spells it in signed data (`environment`,
/// `receiptType`). The domain's own copy, so configuration does not depend on the App Store module.
public enum AppStoreEnvironmentName: String, Sendable, Hashable, CaseIterable, ConfiguredName {
    case production = "Production"
    case sandbox = "Sandbox"
    /// Xcode's local StoreKit configuration: signed on the developer's machine, never by the App Store.
    case xcode = "Xcode"
    /// Apple's libraries use it for unit tests: never signed by the App Store.
    case localTesting = "LocalTesting"

    /// Xcode and LocalTesting: data the App Store never signed. A tenant accepts them only when it lists them.
    public var isLocal: Bool { self == .xcode || self == .localTesting }

    package static let nameKind = "App Store environment"
    package static func note(on text: String) -> String? { spelling(of: text) }
}

/// An App Store product's kind, which decides how long a purchase grants its entitlements.
public enum AppStoreProductType: String, Sendable, Hashable, CaseIterable, ConfiguredName {
    /// Grants until `expiresDate` (plus grace).
    case autoRenewable = "auto_renewable"
    /// Grants for life.
    case nonConsumable = "non_consumable"
    /// Grants nothing; purchases are recorded only.
    case consumable = "consumable"
    /// Grants for ``AppStoreProduct/durationDays`` from the purchase.
    case nonRenewing = "non_renewing"

    package static let nameKind = "product type"
}

/// One product in `app_store.products`.
public struct AppStoreProduct: Sendable, Hashable {
    public static let durationDaysRange: ClosedRange<Int> = 1...3660

    public var type: AppStoreProductType
    /// Days a purchase grants; set for (and only for) ``AppStoreProductType/nonRenewing``.
    public var durationDays: Int?

    public init(type: AppStoreProductType, durationDays: Int? = nil) {
        self.type = type
        self.durationDays = durationDays
    }
}

/// A tenant's `app_store` configuration: which app's signed data it accepts, from which environments, trusting which
/// roots, and how its products behave. Plain values only; the server builds the verifier from them.
///
///     "app_store": {
///       "bundle_id": "com.example.app",                 // required
///       "app_apple_id": 1234567890,                     // required when Production is accepted
///       "environments": ["Production", "Sandbox"],      // required; Xcode/LocalTesting only if listed, never with Production
///       "root_certificates": ["AppleRootCA-G3.cer"],    // optional; relative to the tenants file; default AppleRootCA-G3.cer there
///       "grace_period_days": 16,                        // optional; 0–60, default 0
///       "transfer_policy": "transfer",                  // optional; transfer | transfer_if_no_active | keep_with_original
///       "products": {"com.example.pass": {"type": "non_renewing", "duration_days": 30}},  // optional
///       "server_api": {...},                            // optional: ``AppStoreServerAPISettings``
///       "offers": {...}                                 // optional: ``AppStoreOffers``; needs server_api's key
///     }
public struct AppStoreSettings: Sendable, Hashable {
    /// The root certificate file used when `root_certificates` is absent, looked for next to the tenants file.
    public static let defaultRootCertificateFile = "AppleRootCA-G3.cer"
    public static let gracePeriodDaysRange: ClosedRange<Int> = 0...60

    /// The app's bundle ID; signed data for any other app is refused.
    public var bundleID: String
    /// Apple's numeric ID of the app (`appAppleId`), checked on production data; always set when Production is accepted.
    public var appAppleID: Int64?
    /// The environments whose data the tenant accepts; never empty, never Production together with Xcode/LocalTesting.
    public var environments: Set<AppStoreEnvironmentName>
    /// Absolute paths of the trusted root certificates (PEM or DER), in configuration order.
    public var rootCertificatePaths: [String]
    /// Every certificate those files hold (a PEM file may hold several), read once when the tenant loads: what the
    /// verifier trusts, and what the trust warning judges.
    public package(set) var trustedRoots: [TrustedRoot] = []
    /// Days of access after `expiresDate` when a billing grace period has no `gracePeriodExpiresDate`.
    public var gracePeriodDays: Int
    public var transferPolicy: TransferPolicy
    /// Store product ID → its kind. Entitlements come from the tenant's ``Tenant/products``.
    public var products: [String: AppStoreProduct]
    /// How the server calls Apple's App Store Server API for this app; nil: it does not.
    public var serverAPI: AppStoreServerAPISettings?
    /// The promotional offers the server signs and how introductory-offer eligibility is decided.
    public var offers: AppStoreOffers

    /// Settings built in code; validated when passed to ``Tenant/init(id:publicKeyHashes:secretKeyHashes:entitlements:allowUndeclaredEntitlements:products:appStore:playStore:stripe:browser:webhooks:commissions:exchangeRates:attributes:privacy:retention:)``.
    public init(
        bundleID: String, appAppleID: Int64? = nil, environments: Set<AppStoreEnvironmentName>,
        rootCertificatePaths: [String], gracePeriodDays: Int = 0, transferPolicy: TransferPolicy = .transfer,
        products: [String: AppStoreProduct] = [:], serverAPI: AppStoreServerAPISettings? = nil,
        offers: AppStoreOffers = AppStoreOffers()
    ) {
        self.serverAPI = serverAPI
        self.offers = offers
        self.bundleID = bundleID
        self.appAppleID = appAppleID
        self.environments = environments
        self.rootCertificatePaths = rootCertificatePaths
        self.gracePeriodDays = gracePeriodDays
        self.transferPolicy = transferPolicy
        self.products = products
    }

    public func accepts(_ environment: AppStoreEnvironmentName) -> Bool {
        environments.contains(environment)
    }

    // MARK: Rules (errors are relative to the checked value; the tenants file reader and `validated` share them)

    /// These settings checked as a configured `app_store` would be, with ``trustedRoots`` read from
    /// ``rootCertificatePaths`` (relative ones resolved against `directory`). `mappedProducts` is the tenant's
    /// `products`. Error paths are relative to `app_store`.
    package func validated(mappedProducts: [String: [String]], directory: String) throws(TenantRuleError)
        -> AppStoreSettings
    {
        try TenantRuleError.at(".bundle_id") { () throws(TenantRuleError) in try Self.checkBundleID(bundleID) }
        let listed = AppStoreEnvironmentName.allCases.filter(environments.contains)
        try TenantRuleError.at(".environments") { () throws(TenantRuleError) in
            try Self.checkEnvironmentsListed(count: listed.count)
            try Self.checkEnvironmentsCombine(listed)
        }
        if let appAppleID {
            try TenantRuleError.at(".app_apple_id") { () throws(TenantRuleError) in _ = try Self.checkAppAppleID(appAppleID) }
        }
        try Self.checkAppAppleIDPresent(appAppleID, environments: environments)
        var settings = self
        settings.rootCertificatePaths = []
        settings.trustedRoots = []
        try TenantRuleError.at(".root_certificates") { () throws(TenantRuleError) in
            try Self.checkRootsListed(count: rootCertificatePaths.count)
            for (index, text) in rootCertificatePaths.enumerated() {
                let (path, roots) = try TenantRuleError.at("[\(index)]") { () throws(TenantRuleError) in
                    try Self.rootCertificates(text, against: directory, listedAfter: settings.rootCertificatePaths)
                }
                settings.rootCertificatePaths.append(path)
                settings.trustedRoots += roots
            }
        }
        try TenantRuleError.at(".grace_period_days") { () throws(TenantRuleError) in
            _ = try Self.checkGracePeriodDays(gracePeriodDays, written: String(gracePeriodDays))
        }
        try TenantRuleError.at(".products") { () throws(TenantRuleError) in
            for id in products.keys.sorted() {
                let product = products[id]!
                try TenantRuleError.at("[\"\(id)\"]") { () throws(TenantRuleError) in
                    try Tenant.checkProductID(id)
                    _ = try Self.checkProduct(
                        id, type: product.type, durationDays: product.durationDays.map { ($0, String($0)) },
                        mapped: mappedProducts[id] != nil)
                }
            }
        }
        if let serverAPI {
            settings.serverAPI = try TenantRuleError.at(".server_api") { () throws(TenantRuleError) in
                try serverAPI.validated(directory: directory)
            }
        }
        if offers != AppStoreOffers() {
            settings.offers = try TenantRuleError.at(".offers") { () throws(TenantRuleError) in
                try offers.validated(mappedProducts: mappedProducts, hasKey: serverAPI != nil)
            }
        }
        return settings
    }

    package static func checkBundleID(_ id: String) throws(TenantRuleError) {
        if id.isEmpty { throw TenantRuleError(.invalidValue, "the bundle ID is empty") }
        if id.utf8.count > 255 { throw TenantRuleError(.invalidValue, "the bundle ID is longer than 255 bytes") }
        if let scalar = id.unicodeScalars.first(where: { AppUserID.isControl($0) || AppUserID.isWhitespace($0) }) {
            throw TenantRuleError(
                .invalidValue,
                "the bundle ID contains \(AppUserID.codePoint(scalar)); bundle IDs have no whitespace or control characters")
        }
    }

    /// At least one environment is accepted.
    package static func checkEnvironmentsListed(count: Int) throws(TenantRuleError) {
        try ListRule.checkNotEmpty(
            count: count,
            "no environments are listed, so every purchase would be refused; list at least one, or remove \"app_store\"")
    }

    /// Never Xcode or LocalTesting together with Production; the error names the first local one's index (`[1]`).
    package static func checkEnvironmentsCombine(_ listed: [AppStoreEnvironmentName]) throws(TenantRuleError) {
        guard listed.contains(.production), let index = listed.firstIndex(where: \.isLocal) else { return }
        let local = listed[index].rawValue
        throw TenantRuleError(
            .conflictingEnvironments, at: "[\(index)]",
            "\"\(local)\" cannot be accepted together with \"Production\": \(local) data is signed "
                + "on a developer's machine, not by the App Store, so anyone could make it; a production tenant must "
                + "never accept local data. Use a separate development tenant for \"\(local)\"")
    }

    /// A positive Apple ID; `value` is nil when the configured number is not a whole number `Int64` can hold.
    package static func checkAppAppleID(_ value: Int64?) throws(TenantRuleError) -> Int64 {
        guard let value, value > 0 else {
            throw TenantRuleError(
                .invalidValue,
                "expected the app's Apple ID, a positive whole number (App Store Connect → App Information → Apple ID)")
        }
        return value
    }

    /// The Apple ID is required when Production is accepted (error at the `app_store` itself).
    package static func checkAppAppleIDPresent(_ value: Int64?, environments: Set<AppStoreEnvironmentName>)
        throws(TenantRuleError)
    {
        if value == nil && environments.contains(.production) {
            throw TenantRuleError(
                .missingField,
                "missing \"app_apple_id\": it is required when \"Production\" is accepted, to check production "
                    + "notifications' appAppleId (App Store Connect → App Information → Apple ID)")
        }
    }

    /// A listed `root_certificates` is not empty.
    package static func checkRootsListed(count: Int) throws(TenantRuleError) {
        try ListRule.checkNotEmpty(
            count: count,
            "no root certificates are listed, so no signature could be trusted; list at least one, or leave "
                + "\"root_certificates\" out to use \(defaultRootCertificateFile) next to the tenants file")
    }

    /// One listed root certificate file: its absolute path (resolved against `directory`) and the certificates it
    /// holds. `previous` are the absolute paths listed before it.
    package static func rootCertificates(_ text: String, against directory: String, listedAfter previous: [String])
        throws(TenantRuleError) -> (path: String, roots: [TrustedRoot])
    {
        if text.isEmpty { throw TenantRuleError(.invalidValue, "the certificate path is empty") }
        let resolved = FileSystem.resolve(text, against: directory)
        try ListRule.checkNotListed(resolved, written: text, in: previous)
        switch trustedRoots(inFile: resolved) {
        case .failure(let problem):
            throw TenantRuleError(.unreadableCertificate, "cannot read root certificate \"\(resolved)\": \(problem)")
        case .success(let roots): return (resolved, roots)
        }
    }

    /// The default root certificate file in `directory`, used when no `root_certificates` are listed (error at the
    /// `app_store` itself).
    package static func defaultRootCertificates(against directory: String) throws(TenantRuleError)
        -> (path: String, roots: [TrustedRoot])
    {
        let resolved = FileSystem.resolve(defaultRootCertificateFile, against: directory)
        switch trustedRoots(inFile: resolved) {
        case .success(let roots): return (resolved, roots)
        case .failure(let problem):
            throw TenantRuleError(
                .unreadableCertificate,
                "no \"root_certificates\" are listed, so the default \"\(resolved)\" is used, and it cannot be "
                    + "read: \(problem); put Apple Root CA - G3 there or list the roots in \"root_certificates\"")
        }
    }

    /// `value` is nil when `text` is not a whole number.
    package static func checkGracePeriodDays(_ value: Int?, written text: String) throws(TenantRuleError) -> Int {
        try ListRule.wholeNumber(value, written: text, in: gracePeriodDaysRange, unit: "days")
    }

    /// One `app_store.products` entry (its ID checked by ``Tenant/checkProductID(_:)``): `durationDays` (the value,
    /// nil when not a whole number, and as written) for and only for non_renewing products, and a tenant `products`
    /// entry (`mapped`) unless it is a consumable. Errors at the product or at `.duration_days`.
    package static func checkProduct(
        _ id: String, type: AppStoreProductType, durationDays: (value: Int?, text: String)?, mapped: Bool
    ) throws(TenantRuleError) -> AppStoreProduct {
        var days: Int?
        if let durationDays {
            guard type == .nonRenewing else {
                throw TenantRuleError(
                    .invalidValue, at: ".duration_days",
                    "only non_renewing products have \"duration_days\"; a \(type.rawValue) product's access is "
                        + "decided by the App Store")
            }
            days = try TenantRuleError.at(".duration_days") { () throws(TenantRuleError) in
                try ListRule.wholeNumber(
                    durationDays.value, written: durationDays.text, in: AppStoreProduct.durationDaysRange, unit: "days")
            }
        } else if type == .nonRenewing {
            throw TenantRuleError(
                .missingField,
                "missing \"duration_days\": how many days a purchase of non_renewing product \"\(id)\" grants "
                    + "(\(AppStoreProduct.durationDaysRange.lowerBound)–\(AppStoreProduct.durationDaysRange.upperBound))")
        }
        if type != .consumable && !mapped {
            throw TenantRuleError(
                .unmappedProduct,
                "\(type.rawValue) product \"\(id)\" is not in the tenant's \"products\", so a "
                    + "purchase of it would grant nothing; map it to its entitlements there "
                    + "(only consumables, which grant nothing, may be left out)")
        }
        return AppStoreProduct(type: type, durationDays: days)
    }

    /// The certificates of a root certificate file (PEM with one or more blocks, or DER), or why it cannot be used.
    package static func trustedRoots(inFile path: String) -> Result<[TrustedRoot], CertificateFileProblem> {
        switch FileSystem.readFile(path) {
        case .failure(let error): return .failure(CertificateFileProblem(description: error.reason))
        case .success(let bytes):
            guard !bytes.isEmpty else { return .failure(CertificateFileProblem(description: "the file is empty")) }
            do throws(CryptoError) {
                return .success(try Certificate.all(inFile: bytes).map { TrustedRoot(path: path, certificate: $0) })
            } catch {
                return .failure(CertificateFileProblem(description: "not a PEM or DER certificate file (\(error.message))"))
            }
        }
    }

    package struct CertificateFileProblem: Error, CustomStringConvertible {
        package var description: String
    }
}

/// One trusted root certificate and the file it came from.
public struct TrustedRoot: Sendable, Hashable {
    public let path: String
    public let certificate: Certificate
}
