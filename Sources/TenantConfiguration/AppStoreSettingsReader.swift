import EntitlementDomain

/// A tenant's `app_store` object (see ``AppStoreSettings`` for the format): the JSON shapes here, every rule from
/// the domain.
extension TenantConfigReader {
    static let appStoreFields = [
        "bundle_id", "app_apple_id", "environments", "root_certificates", "grace_period_days", "transfer_policy",
        "products", "server_api", "_comment",
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

        guard let bundleNode = members["bundle_id"] else {
            throw error(.missingField, node, path, "missing \"bundle_id\": the app's bundle ID, such as \"com.example.app\"")
        }
        let bundleID = try string(bundleNode, path: path + ".bundle_id")
        try rule(bundleNode, path + ".bundle_id") { () throws(TenantRuleError) in try AppStoreSettings.checkBundleID(bundleID) }

        guard let environmentsNode = members["environments"] else {
            throw error(
                .missingField, node, path,
                "missing \"environments\": list the App Store environments whose purchases this tenant accepts "
                    + "(any of \"Production\", \"Sandbox\", \"Xcode\", \"LocalTesting\")")
        }
        let environmentsPath = path + ".environments"
        let environmentNodes = try array(environmentsNode, path: environmentsPath)
        try rule(environmentsNode, environmentsPath) { () throws(TenantRuleError) in
            try AppStoreSettings.checkEnvironmentsListed(count: environmentNodes.count)
        }
        var listed: [AppStoreEnvironmentName] = []
        var nodesByIndex: [String: JSONNode] = [:]
        for (index, environmentNode) in environmentNodes.enumerated() {
            let environmentPath = "\(environmentsPath)[\(index)]"
            let text = try string(environmentNode, path: environmentPath)
            let environment = try rule(environmentNode, environmentPath) { () throws(TenantRuleError) in
                let environment = try AppStoreEnvironmentName.named(text)
                try ListRule.checkNotListed(environment, written: text, in: listed)
                return environment
            }
            listed.append(environment)
            nodesByIndex["[\(index)]"] = environmentNode
        }
        try rule(environmentsNode, environmentsPath, nodes: nodesByIndex) { () throws(TenantRuleError) in
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

        var gracePeriodDays = 0
        if let graceNode = members["grace_period_days"] {
            let gracePath = path + ".grace_period_days"
            let text = try number(graceNode, path: gracePath)
            gracePeriodDays = try rule(graceNode, gracePath) { () throws(TenantRuleError) in
                try AppStoreSettings.checkGracePeriodDays(Int(text), written: text)
            }
        }

        var transferPolicy = TransferPolicy.transfer
        if let policyNode = members["transfer_policy"] {
            let policyPath = path + ".transfer_policy"
            let text = try string(policyNode, path: policyPath)
            transferPolicy = try rule(policyNode, policyPath) { () throws(TenantRuleError) in
                try TransferPolicy.named(text)
            }
        }

        var products: [String: AppStoreProduct] = [:]
        if let productsNode = members["products"] {
            let productsPath = path + ".products"
            guard case .object(let productMembers) = productsNode.value else {
                throw typeMismatch(productsNode, productsPath, expected: "an object of product ID → {\"type\": ...}")
            }
            for member in productMembers {
                let productPath = "\(productsPath)[\"\(member.key)\"]"
                try rule(member.value, productPath) { () throws(TenantRuleError) in try Tenant.checkProductID(member.key) }
                products[member.key] = try appStoreProduct(
                    member.value, path: productPath, id: member.key, mapped: mappedProducts[member.key] != nil)
            }
        }

        let serverAPI = try members["server_api"].map { node throws(TenantConfigError) in
            try serverAPISettings(node, path: path + ".server_api")
        }
        var settings = AppStoreSettings(
            bundleID: bundleID, appAppleID: appAppleID, environments: environments, rootCertificatePaths: rootPaths,
            gracePeriodDays: gracePeriodDays, transferPolicy: transferPolicy, products: products, serverAPI: serverAPI)
        settings.trustedRoots = trustedRoots
        return settings
    }

    /// `app_store.server_api`: the In-App Purchase key and Apple's hosts.
    private func serverAPISettings(_ node: JSONNode, path: String) throws(TenantConfigError) -> AppStoreServerAPISettings {
        let members = try object(node, path: path, allowed: Self.serverAPIFields, what: "\"server_api\"")
        func required(_ field: String, _ what: String) throws(TenantConfigError) -> (JSONNode, String) {
            guard let member = members[field] else {
                throw error(.missingField, node, path, "missing \"\(field)\": \(what)")
            }
            return (member, try string(member, path: path + "." + field))
        }
        let (keyNode, keyText) = try required(
            "key_file", "the In-App Purchase key (.p8) from App Store Connect, Users and Access → Integrations")
        let keyPath = try rule(keyNode, path + ".key_file") { () throws(TenantRuleError) in
            try AppStoreServerAPISettings.keyFile(keyText, against: directory)
        }
        let (keyIDNode, keyID) = try required("key_id", "the key's ID, shown beside it in App Store Connect")
        try rule(keyIDNode, path + ".key_id") { () throws(TenantRuleError) in try AppStoreServerAPISettings.checkKeyID(keyID) }
        let (issuerNode, issuerID) = try required("issuer_id", "the issuer ID shown above the keys in App Store Connect")
        try rule(issuerNode, path + ".issuer_id") { () throws(TenantRuleError) in
            try AppStoreServerAPISettings.checkIssuerID(issuerID)
        }
        var urls = [AppStoreServerAPISettings.defaultProductionURL, AppStoreServerAPISettings.defaultSandboxURL]
        for (index, field) in ["production_url", "sandbox_url"].enumerated() {
            guard let urlNode = members[field] else { continue }
            let text = try string(urlNode, path: path + "." + field)
            try rule(urlNode, path + "." + field) { () throws(TenantRuleError) in
                try AppStoreServerAPISettings.checkHostURL(text)
            }
            urls[index] = text
        }
        var consultsHistory = false
        if let flagNode = members["restore_consults_history"] {
            guard case .bool(let flag) = flagNode.value else {
                throw typeMismatch(flagNode, path + ".restore_consults_history", expected: "true or false")
            }
            consultsHistory = flag
        }
        var reconcileMinutes = AppStoreServerAPISettings.defaultReconcileMinutes
        if let minutesNode = members["reconcile_minutes"] {
            let minutesPath = path + ".reconcile_minutes"
            let text = try number(minutesNode, path: minutesPath)
            reconcileMinutes = try rule(minutesNode, minutesPath) { () throws(TenantRuleError) in
                try AppStoreServerAPISettings.checkReconcileMinutes(Int(text), written: text)
            }
        }
        return AppStoreServerAPISettings(
            keyFilePath: keyPath, keyID: keyID, issuerID: issuerID, productionURL: urls[0], sandboxURL: urls[1],
            restoreConsultsHistory: consultsHistory, reconcileMinutes: reconcileMinutes)
    }

    private func appStoreProduct(_ node: JSONNode, path: String, id: String, mapped: Bool) throws(TenantConfigError)
        -> AppStoreProduct
    {
        let members = try object(node, path: path, allowed: Self.appStoreProductFields, what: "an App Store product")
        guard let typeNode = members["type"] else {
            throw error(
                .missingField, node, path,
                "missing \"type\": one of "
                    + AppStoreProductType.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))
        }
        let typeText = try string(typeNode, path: path + ".type")
        let type = try rule(typeNode, path + ".type") { () throws(TenantRuleError) in try AppStoreProductType.named(typeText) }
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
