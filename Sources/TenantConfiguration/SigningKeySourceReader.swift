import EntitlementDomain

/// `jwks_url` or `jwks_file` of a settings object (see ``SigningKeySource``): the JSON shapes here, the rules from the
/// domain.
extension TenantConfigReader {
    /// The source `members` (the object `node` at `path`) give; nil when they give neither.
    func signingKeySource(of members: [String: JSONNode], in node: JSONNode, at path: String) throws(TenantConfigError)
        -> SigningKeySource?
    {
        var nodes: [String: JSONNode] = [:]
        nodes[".jwks_file"] = members["jwks_file"]
        try rule(node, path, nodes: nodes) { () throws(TenantRuleError) in
            try SigningKeySource.checkOneGiven(url: members["jwks_url"] != nil, file: members["jwks_file"] != nil)
        }
        if let urlNode = members["jwks_url"] {
            let text = try string(urlNode, path: path + ".jwks_url")
            try rule(urlNode, path + ".jwks_url") { () throws(TenantRuleError) in try SigningKeySource.checkURL(text) }
            return .url(text)
        }
        guard let fileNode = members["jwks_file"] else { return nil }
        let text = try string(fileNode, path: path + ".jwks_file")
        return .file(
            try rule(fileNode, path + ".jwks_file") { () throws(TenantRuleError) in
                try SigningKeySource.file(text, against: directory)
            })
    }
}
