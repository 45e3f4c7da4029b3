import EntitlementDomain

/// A tenant's `attributes` object (see ``AttributeSettings`` for the format): the JSON shapes here, every rule from
/// the domain.
extension TenantConfigReader {
    static let attributeFields = ["app_keys", "backend_keys", "_comment"]

    func attributeSettings(_ node: JSONNode, path: String) throws(TenantConfigError) -> AttributeSettings {
        let members = try object(node, path: path, allowed: Self.attributeFields, what: "\"attributes\"")
        func keys(_ name: String) throws(TenantConfigError) -> [String]? {
            guard members[name] != nil else { return nil }
            return try requiredList(
                name, of: members, in: node, at: path, "",
                count: AttributeSettings.checkKeyCount,
                { key, listed throws(TenantRuleError) in
                    try AttributeSettings.checkKey(key, listedAfter: listed)
                    return key
                }
            ).elements
        }
        return AttributeSettings(
            appKeys: try keys("app_keys") ?? AttributeSettings.defaults.appKeys, backendKeys: try keys("backend_keys"))
    }
}
