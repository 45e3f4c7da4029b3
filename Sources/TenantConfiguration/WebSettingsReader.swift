import EntitlementDomain

/// A tenant's `web` object (see ``WebSettings`` for the format): the JSON shapes here, every rule from the domain.
extension TenantConfigReader {
    static let webFields = ["allowed_origins", "_comment"]

    func webSettings(_ node: JSONNode, path: String) throws(TenantConfigError) -> WebSettings {
        let members = try object(node, path: path, allowed: Self.webFields, what: "\"web\"")
        guard let originsNode = members["allowed_origins"] else {
            throw error(
                .missingField, node, path,
                "missing \"allowed_origins\": the origins of the pages that call this API from a browser "
                    + "(\"https://app.example.com\")")
        }
        let originsPath = path + ".allowed_origins"
        let originNodes = try array(originsNode, path: originsPath)
        try rule(originsNode, originsPath) { () throws(TenantRuleError) in
            try WebSettings.checkAllowedOriginCount(originNodes.count)
        }
        var origins: [String] = []
        for (index, originNode) in originNodes.enumerated() {
            let originPath = "\(originsPath)[\(index)]"
            let origin = try string(originNode, path: originPath)
            try rule(originNode, originPath) { () throws(TenantRuleError) in
                try WebSettings.checkOrigin(origin, listedAfter: origins)
            }
            origins.append(origin)
        }
        return WebSettings(allowedOrigins: origins)
    }
}
