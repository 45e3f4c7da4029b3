public import Crypto
import FileAccess

/// An App Store environment a tenant may accept, spelt as Apple spells it in signed data (`environment`,
/// `receiptType`). The domain's own copy, so configuration does not depend on the App Store module.
public enum AppStoreEnvironmentName: String, Sendable, Hashable, CaseIterable {
    case production = "Production"
    case sandbox = "Sandbox"
    /// Xcode's local StoreKit configuration: signed on the developer's machine, never by the App Store.
    case xcode = "Xcode"
    /// Apple's libraries use it for unit tests: never signed by the App Store.
    case localTesting = "LocalTesting"

    /// Xcode and LocalTesting: data the App Store never signed. A tenant accepts them only when it lists them.
    public var isLocal: Bool { self == .xcode || self == .localTesting }
}

/// Who keeps a subscription when another user purchases or restores it.
public enum AppStoreTransferPolicy: String, Sendable, Hashable, CaseIterable {
    /// The default: it moves to the user who purchased or restored it; the previous owner loses it.
    case transfer = "transfer"
    /// It moves only when the current owner has no active access from it.
    case transferIfNoActive = "transfer_if_no_active"
    /// It stays with its first owner; the other user's call fails with `ALREADY_EXISTS`.
    case keepWithOriginal = "keep_with_original"
}

/// An App Store product's kind, which decides how long a purchase grants its entitlements.
public enum AppStoreProductType: String, Sendable, Hashable, CaseIterable {
    /// Grants until `expiresDate` (plus grace).
    case autoRenewable = "auto_renewable"
    /// Grants for life.
    case nonConsumable = "non_consumable"
    /// Grants nothing; purchases are recorded only.
    case consumable = "consumable"
    /// Grants for ``AppStoreProduct/durationDays`` from the purchase.
    case nonRenewing = "non_renewing"
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
///       "products": {"com.example.pass": {"type": "non_renewing", "duration_days": 30}}   // optional
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
    public internal(set) var trustedRoots: [TrustedRoot] = []
    /// Days of access after `expiresDate` when a billing grace period has no `gracePeriodExpiresDate`.
    public var gracePeriodDays: Int
    public var transferPolicy: AppStoreTransferPolicy
    /// Store product ID → its kind. Entitlements come from the tenant's ``Tenant/products``.
    public var products: [String: AppStoreProduct]

    /// Settings built in code; validated when passed to ``Tenant/init(id:publicKeyHashes:secretKeyHashes:entitlements:allowUndeclaredEntitlements:products:appStore:)``.
    public init(
        bundleID: String, appAppleID: Int64? = nil, environments: Set<AppStoreEnvironmentName>,
        rootCertificatePaths: [String], gracePeriodDays: Int = 0, transferPolicy: AppStoreTransferPolicy = .transfer,
        products: [String: AppStoreProduct] = [:]
    ) {
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

    /// The settings as configuration JSON, so code-built tenants pass the same checks.
    var jsonNode: JSONNode {
        func node(_ value: JSONNode.Value) -> JSONNode { JSONNode(value: value, line: 0) }
        var members = [JSONNode.Member(key: "bundle_id", value: node(.string(bundleID)))]
        if let appAppleID {
            members.append(JSONNode.Member(key: "app_apple_id", value: node(.number(String(appAppleID)))))
        }
        let environmentNodes = AppStoreEnvironmentName.allCases.filter(environments.contains).map {
            node(.string($0.rawValue))
        }
        members.append(JSONNode.Member(key: "environments", value: node(.array(environmentNodes))))
        members.append(
            JSONNode.Member(key: "root_certificates", value: node(.array(rootCertificatePaths.map { node(.string($0)) }))))
        members.append(JSONNode.Member(key: "grace_period_days", value: node(.number(String(gracePeriodDays)))))
        members.append(JSONNode.Member(key: "transfer_policy", value: node(.string(transferPolicy.rawValue))))
        let productMembers = products.keys.sorted().map { id in
            let product = products[id]!
            var fields = [JSONNode.Member(key: "type", value: node(.string(product.type.rawValue)))]
            if let days = product.durationDays {
                fields.append(JSONNode.Member(key: "duration_days", value: node(.number(String(days)))))
            }
            return JSONNode.Member(key: id, value: node(.object(fields)))
        }
        members.append(JSONNode.Member(key: "products", value: node(.object(productMembers))))
        return node(.object(members))
    }
}

extension TenantConfigReader {
    static let appStoreFields = [
        "bundle_id", "app_apple_id", "environments", "root_certificates", "grace_period_days", "transfer_policy",
        "products", "_comment",
    ]
    static let appStoreProductFields = ["type", "duration_days"]

    /// A tenant's `app_store` object. `mappedProducts` is the tenant's `products` (product → entitlements).
    func appStoreSettings(_ node: JSONNode, path: String, mappedProducts: [String: [String]])
        throws(TenantConfigError) -> AppStoreSettings
    {
        let members = try object(node, path: path, allowed: Self.appStoreFields, what: "\"app_store\"")

        guard let bundleNode = members["bundle_id"] else {
            throw error(.missingField, node, path, "missing \"bundle_id\": the app's bundle ID, such as \"com.example.app\"")
        }
        let bundleID = try string(bundleNode, path: path + ".bundle_id")
        if let problem = Self.bundleIDProblem(bundleID) {
            throw error(.invalidValue, bundleNode, path + ".bundle_id", problem)
        }

        guard let environmentsNode = members["environments"] else {
            throw error(
                .missingField, node, path,
                "missing \"environments\": list the App Store environments whose purchases this tenant accepts "
                    + "(any of \"Production\", \"Sandbox\", \"Xcode\", \"LocalTesting\")")
        }
        let environmentNodes = try array(environmentsNode, path: path + ".environments")
        if environmentNodes.isEmpty {
            throw error(
                .invalidValue, environmentsNode, path + ".environments",
                "no environments are listed, so every purchase would be refused; list at least one, or remove \"app_store\"")
        }
        var environments: Set<AppStoreEnvironmentName> = []
        var environmentEntries: [(AppStoreEnvironmentName, JSONNode, String)] = []
        for (index, environmentNode) in environmentNodes.enumerated() {
            let environmentPath = "\(path).environments[\(index)]"
            let text = try string(environmentNode, path: environmentPath)
            guard let environment = AppStoreEnvironmentName(rawValue: text) else {
                var message = "unknown App Store environment \"\(text)\"; expected one of "
                    + AppStoreEnvironmentName.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
                if let match = AppStoreEnvironmentName.allCases.first(where: { $0.rawValue.lowercased() == text.lowercased() }) {
                    message += " (spelt exactly; did you mean \"\(match.rawValue)\"?)"
                }
                throw error(.invalidValue, environmentNode, environmentPath, message)
            }
            guard environments.insert(environment).inserted else {
                throw error(.duplicateEntry, environmentNode, environmentPath, "\"\(text)\" is listed twice")
            }
            environmentEntries.append((environment, environmentNode, environmentPath))
        }
        if environments.contains(.production),
            let (local, localNode, localPath) = environmentEntries.first(where: { $0.0.isLocal })
        {
            throw error(
                .conflictingEnvironments, localNode, localPath,
                "\"\(local.rawValue)\" cannot be accepted together with \"Production\": \(local.rawValue) data is signed "
                    + "on a developer's machine, not by the App Store, so anyone could make it; a production tenant must "
                    + "never accept local data. Use a separate development tenant for \"\(local.rawValue)\"")
        }

        var appAppleID: Int64?
        if let idNode = members["app_apple_id"] {
            let idPath = path + ".app_apple_id"
            guard case .number(let text) = idNode.value else {
                throw typeMismatch(idNode, idPath, expected: "a number")
            }
            guard let value = Int64(text), value > 0 else {
                throw error(
                    .invalidValue, idNode, idPath,
                    "expected the app's Apple ID, a positive whole number (App Store Connect → App Information → Apple ID)")
            }
            appAppleID = value
        } else if environments.contains(.production) {
            throw error(
                .missingField, node, path,
                "missing \"app_apple_id\": it is required when \"Production\" is accepted, to check production "
                    + "notifications' appAppleId (App Store Connect → App Information → Apple ID)")
        }

        var rootPaths: [String] = []
        var trustedRoots: [TrustedRoot] = []
        if let rootsNode = members["root_certificates"] {
            let rootsPath = path + ".root_certificates"
            let rootNodes = try array(rootsNode, path: rootsPath)
            if rootNodes.isEmpty {
                throw error(
                    .invalidValue, rootsNode, rootsPath,
                    "no root certificates are listed, so no signature could be trusted; list at least one, or leave "
                        + "\"root_certificates\" out to use \(AppStoreSettings.defaultRootCertificateFile) next to the tenants file")
            }
            for (index, rootNode) in rootNodes.enumerated() {
                let rootPath = "\(rootsPath)[\(index)]"
                let text = try string(rootNode, path: rootPath)
                if text.isEmpty { throw error(.invalidValue, rootNode, rootPath, "the certificate path is empty") }
                let resolved = FileSystem.resolve(text, against: directory)
                if rootPaths.contains(resolved) {
                    throw error(.duplicateEntry, rootNode, rootPath, "\"\(text)\" is listed twice")
                }
                switch Self.trustedRoots(inFile: resolved) {
                case .failure(let problem):
                    throw error(.unreadableCertificate, rootNode, rootPath, "cannot read root certificate \"\(resolved)\": \(problem)")
                case .success(let roots): trustedRoots += roots
                }
                rootPaths.append(resolved)
            }
        } else {
            let resolved = FileSystem.resolve(AppStoreSettings.defaultRootCertificateFile, against: directory)
            switch Self.trustedRoots(inFile: resolved) {
            case .success(let roots): trustedRoots = roots
            case .failure(let problem):
                throw error(
                    .unreadableCertificate, node, path,
                    "no \"root_certificates\" are listed, so the default \"\(resolved)\" is used, and it cannot be "
                        + "read: \(problem); put Apple Root CA - G3 there or list the roots in \"root_certificates\"")
            }
            rootPaths = [resolved]
        }

        var gracePeriodDays = 0
        if let graceNode = members["grace_period_days"] {
            gracePeriodDays = try integer(
                graceNode, path: path + ".grace_period_days", in: AppStoreSettings.gracePeriodDaysRange, unit: "days")
        }

        var transferPolicy = AppStoreTransferPolicy.transfer
        if let policyNode = members["transfer_policy"] {
            let policyPath = path + ".transfer_policy"
            let text = try string(policyNode, path: policyPath)
            guard let policy = AppStoreTransferPolicy(rawValue: text) else {
                throw error(
                    .invalidValue, policyNode, policyPath,
                    "unknown transfer policy \"\(text)\"; expected one of "
                        + AppStoreTransferPolicy.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))
            }
            transferPolicy = policy
        }

        var products: [String: AppStoreProduct] = [:]
        if let productsNode = members["products"] {
            let productsPath = path + ".products"
            guard case .object(let productMembers) = productsNode.value else {
                throw typeMismatch(productsNode, productsPath, expected: "an object of product ID → {\"type\": ...}")
            }
            for member in productMembers {
                let productPath = "\(productsPath)[\"\(member.key)\"]"
                if let problem = Self.productIDProblem(member.key) {
                    throw error(.invalidValue, member.value, productPath, problem)
                }
                let product = try appStoreProduct(member.value, path: productPath, id: member.key)
                if product.type != .consumable && mappedProducts[member.key] == nil {
                    throw error(
                        .unmappedProduct, member.value, productPath,
                        "\(product.type.rawValue) product \"\(member.key)\" is not in the tenant's \"products\", so a "
                            + "purchase of it would grant nothing; map it to its entitlements there "
                            + "(only consumables, which grant nothing, may be left out)")
                }
                products[member.key] = product
            }
        }

        var settings = AppStoreSettings(
            bundleID: bundleID, appAppleID: appAppleID, environments: environments, rootCertificatePaths: rootPaths,
            gracePeriodDays: gracePeriodDays, transferPolicy: transferPolicy, products: products)
        settings.trustedRoots = trustedRoots
        return settings
    }

    private func appStoreProduct(_ node: JSONNode, path: String, id: String) throws(TenantConfigError) -> AppStoreProduct {
        let members = try object(node, path: path, allowed: Self.appStoreProductFields, what: "an App Store product")
        guard let typeNode = members["type"] else {
            throw error(
                .missingField, node, path,
                "missing \"type\": one of "
                    + AppStoreProductType.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))
        }
        let typeText = try string(typeNode, path: path + ".type")
        guard let type = AppStoreProductType(rawValue: typeText) else {
            throw error(
                .invalidValue, typeNode, path + ".type",
                "unknown product type \"\(typeText)\"; expected one of "
                    + AppStoreProductType.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))
        }
        var durationDays: Int?
        if let durationNode = members["duration_days"] {
            guard type == .nonRenewing else {
                throw error(
                    .invalidValue, durationNode, path + ".duration_days",
                    "only non_renewing products have \"duration_days\"; a \(type.rawValue) product's access is "
                        + "decided by the App Store")
            }
            durationDays = try integer(
                durationNode, path: path + ".duration_days", in: AppStoreProduct.durationDaysRange, unit: "days")
        } else if type == .nonRenewing {
            throw error(
                .missingField, node, path,
                "missing \"duration_days\": how many days a purchase of non_renewing product \"\(id)\" grants "
                    + "(\(AppStoreProduct.durationDaysRange.lowerBound)–\(AppStoreProduct.durationDaysRange.upperBound))")
        }
        return AppStoreProduct(type: type, durationDays: durationDays)
    }

    /// A whole number within `range`.
    private func integer(_ node: JSONNode, path: String, in range: ClosedRange<Int>, unit: String)
        throws(TenantConfigError) -> Int
    {
        guard case .number(let text) = node.value else { throw typeMismatch(node, path, expected: "a number") }
        guard let value = Int(text), range.contains(value) else {
            throw error(
                .invalidValue, node, path,
                "expected a whole number of \(unit) from \(range.lowerBound) to \(range.upperBound), found \(text)")
        }
        return value
    }

    static func bundleIDProblem(_ id: String) -> String? {
        if id.isEmpty { return "the bundle ID is empty" }
        if id.utf8.count > 255 { return "the bundle ID is longer than 255 bytes" }
        if let scalar = id.unicodeScalars.first(where: { AppUserID.isControl($0) || AppUserID.isWhitespace($0) }) {
            return "the bundle ID contains \(AppUserID.codePoint(scalar)); bundle IDs have no whitespace or control characters"
        }
        return nil
    }

    /// The certificates of a root certificate file (PEM with one or more blocks, or DER), or why it cannot be used.
    static func trustedRoots(inFile path: String) -> Result<[TrustedRoot], CertificateFileProblem> {
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

    struct CertificateFileProblem: Error, CustomStringConvertible {
        var description: String
    }
}

/// One trusted root certificate and the file it came from.
public struct TrustedRoot: Sendable, Hashable {
    public let path: String
    public let certificate: Certificate
}
