import EntitlementDomain

/// A tenant's `web` object (see ``BrowserSettings`` for the format): the JSON shapes here, every rule from the domain.
extension TenantConfigReader {
    static let browserFields = ["allowed_origins", "_comment"]

    func browserSettings(_ node: JSONNode, path: String) throws(TenantConfigError) -> BrowserSettings {
        let members = try object(node, path: path, allowed: Self.browserFields, what: "\"web\"")
        guard let originsNode = members["allowed_origins"] else {
            throw error(
                .missingField, node, path,
                "missing \"allowed_origins\": the origins of the pages that call this API from a browser "
                    + "(\"https://app.example.com\")")
        }
        let originsPath = path + ".allowed_origins"
        let originNodes = try array(originsNode, path: originsPath)
        try rule(originsNode, originsPath) { () throws(TenantRuleError) in
            try BrowserSettings.checkAllowedOriginCount(originNodes.count)
        }
        var origins: [String] = []
        for (index, originNode) in originNodes.enumerated() {
            let originPath = "\(originsPath)[\(index)]"
            let origin = try string(originNode, path: originPath)
            try rule(originNode, originPath) { () throws(TenantRuleError) in
                try BrowserSettings.checkOrigin(origin, listedAfter: origins)
            }
            origins.append(origin)
        }
        return BrowserSettings(allowedOrigins: origins)
    }
}
