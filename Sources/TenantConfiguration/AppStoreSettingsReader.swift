import EntitlementDomain

/// A tenant's `app_store` object (see ``AppStoreSettings`` for the format): the JSON shapes here, every rule from
/// the domain.
extension TenantConfigReader {
    static let appStoreFields = [
        "bundle_id", "app_apple_id", "environments", "root_certificates", "grace_period_days", "transfer_policy",
        "products", "server_api", "offers", "_comment",
    ]
    static let serverAPIFields = [
        "key_file", "key_id", "issuer_id", "production_url", "sandbox_url", "restore_consults_history", "reconcile_minutes",
        "_comment",
    ]
    static let appStoreProductFields = ["type", "duration_days"]

    /// A tenant's `app_store` object. `mappedProducts` is the tenant's `products` (product → entitlements).
    func appStoreSettings(_ node: JSONNode, path: String, mappedProducts: [String: [String]])
        throws(TenantConfigError) -> AppStoreSettings
    {
        let members = try object(node, path: path, allowed: Self.appStoreFields, what: "\"app_store\"")

        let bundleID = try requiredString(
            "bundle_id", of: members, in: node, at: path, "the app's bundle ID, such as \"com.example.app\""
        ) { text throws(TenantRuleError) in try AppStoreSettings.checkBundleID(text) }

        let (listed, environmentsNode, nodesByIndex) = try requiredNames(
            "environments", of: members, in: node, at: path,
            "list the App Store environments whose purchases this tenant accepts "
                + "(any of \"Production\", \"Sandbox\", \"Xcode\", \"LocalTesting\")",
            count: { count throws(TenantRuleError) in try AppStoreSettings.checkEnvironmentsListed(count: count) }
        ) { text throws(TenantRuleError) in try AppStoreEnvironmentName.named(text) }
        try rule(environmentsNode, path + ".environments", nodes: nodesByIndex) { () throws(TenantRuleError) in
            try AppStoreSettings.checkEnvironmentsCombine(listed)
        }
        let environments = Set(listed)

        var appAppleID: Int64?
        if let idNode = members["app_apple_id"] {
            let idPath = path + ".app_apple_id"
            guard case .number(let text) = idNode.value else {
                throw typeMismatch(idNode, idPath, expected: "a number")
            }
            appAppleID = try rule(idNode, idPath) { () throws(TenantRuleError) in
                try AppStoreSettings.checkAppAppleID(Int64(text))
            }
        }
        try rule(node, path) { () throws(TenantRuleError) in
            try AppStoreSettings.checkAppAppleIDPresent(appAppleID, environments: environments)
        }

        var rootPaths: [String] = []
        var trustedRoots: [TrustedRoot] = []
        if let rootsNode = members["root_certificates"] {
            let rootsPath = path + ".root_certificates"
            let rootNodes = try array(rootsNode, path: rootsPath)
            try rule(rootsNode, rootsPath) { () throws(TenantRuleError) in
                try AppStoreSettings.checkRootsListed(count: rootNodes.count)
            }
            for (index, rootNode) in rootNodes.enumerated() {
                let rootPath = "\(rootsPath)[\(index)]"
                let text = try string(rootNode, path: rootPath)
                let (resolved, roots) = try rule(rootNode, rootPath) { () throws(TenantRuleError) in
                    try AppStoreSettings.rootCertificates(text, against: directory, listedAfter: rootPaths)
                }
                rootPaths.append(resolved)
                trustedRoots += roots
            }
        } else {
            let (resolved, roots) = try rule(node, path) { () throws(TenantRuleError) in
                try AppStoreSettings.defaultRootCertificates(against: directory)
            }
            rootPaths = [resolved]
            trustedRoots = roots
        }

        let gracePeriodDays = try optionalNumber("grace_period_days", of: members, at: path, absent: 0) {
            days, text throws(TenantRuleError) in try AppStoreSettings.checkGracePeriodDays(days, written: text)
        }
        let transferPolicy = try optionalTransferPolicy(of: members, at: path)
        let products = try optionalStoreProducts(of: members, at: path) { node, productPath, id throws(TenantConfigError) in
            try appStoreProduct(node, path: productPath, id: id, mapped: mappedProducts[id] != nil)
        }

        let serverAPI = try members["server_api"].map { node throws(TenantConfigError) in
            try serverAPISettings(node, path: path + ".server_api")
        }
        let offers = try members["offers"].map { node throws(TenantConfigError) in
            try appStoreOffers(node, path: path + ".offers", mappedProducts: mappedProducts, hasKey: serverAPI != nil)
        }
        var settings = AppStoreSettings(
            bundleID: bundleID, appAppleID: appAppleID, environments: environments, rootCertificatePaths: rootPaths,
            gracePeriodDays: gracePeriodDays, transferPolicy: transferPolicy, products: products, serverAPI: serverAPI,
            offers: offers ?? AppStoreOffers())
        settings.trustedRoots = trustedRoots
        return settings
    }

    /// `app_store.server_api`: the In-App Purchase key and Apple's hosts.
    private func serverAPISettings(_ node: JSONNode, path: String) throws(TenantConfigError) -> AppStoreServerAPISettings {
        let members = try object(node, path: path, allowed: Self.serverAPIFields, what: "\"server_api\"")
        let keyPath = try requiredStringValue(
            "key_file", of: members, in: node, at: path,
            "the In-App Purchase key (.p8) from App Store Connect, Users and Access → Integrations"
        ) { text throws(TenantRuleError) in try AppStoreServerAPISettings.keyFile(text, against: directory) }
        let keyID = try requiredString(
            "key_id", of: members, in: node, at: path, "the key's ID, shown beside it in App Store Connect"
        ) { text throws(TenantRuleError) in try AppStoreServerAPISettings.checkKeyID(text) }
        let issuerID = try requiredString(
            "issuer_id", of: members, in: node, at: path, "the issuer ID shown above the keys in App Store Connect"
        ) { text throws(TenantRuleError) in try AppStoreServerAPISettings.checkIssuerID(text) }
        var urls = [AppStoreServerAPISettings.defaultProductionURL, AppStoreServerAPISettings.defaultSandboxURL]
        for (index, field) in ["production_url", "sandbox_url"].enumerated() {
            urls[index] = try optionalString(field, of: members, at: path, absent: urls[index]) {
                text throws(TenantRuleError) in try AppStoreServerAPISettings.checkHostURL(text)
            }
        }
        let consultsHistory = try optionalFlag("restore_consults_history", of: members, at: path, absent: false)
        let reconcileMinutes = try optionalNumber(
            "reconcile_minutes", of: members, at: path, absent: AppStoreServerAPISettings.defaultReconcileMinutes
        ) { minutes, text throws(TenantRuleError) in
            try AppStoreServerAPISettings.checkReconcileMinutes(minutes, written: text)
        }
        return AppStoreServerAPISettings(
            keyFilePath: keyPath, keyID: keyID, issuerID: issuerID, productionURL: urls[0], sandboxURL: urls[1],
            restoreConsultsHistory: consultsHistory, reconcileMinutes: reconcileMinutes)
    }

    private func appStoreProduct(_ node: JSONNode, path: String, id: String, mapped: Bool) throws(TenantConfigError)
        -> AppStoreProduct
    {
        let members = try object(node, path: path, allowed: Self.appStoreProductFields, what: "an App Store product")
        let type = try requiredStringValue(
            "type", of: members, in: node, at: path,
            "one of " + AppStoreProductType.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        ) { text throws(TenantRuleError) in try AppStoreProductType.named(text) }
        var durationDays: (value: Int?, text: String)?
        var nodes: [String: JSONNode] = [:]
        if let durationNode = members["duration_days"] {
            nodes[".duration_days"] = durationNode
            if case .number(let text) = durationNode.value {
                durationDays = (Int(text), text)
            } else if type == .nonRenewing {
                throw typeMismatch(durationNode, path + ".duration_days", expected: "a number")
            } else {
                durationDays = (nil, "")  // The rule refuses it for its product type before its value matters.
            }
        }
        let days = durationDays
        return try rule(node, path, nodes: nodes) { () throws(TenantRuleError) in
            try AppStoreSettings.checkProduct(id, type: type, durationDays: days, mapped: mapped)
        }
    }
}
