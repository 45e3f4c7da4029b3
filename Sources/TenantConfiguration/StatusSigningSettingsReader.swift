import EntitlementDomain

/// A tenant's `signed_status` object (see ``StatusSigningSettings`` for the format): the JSON shapes here, every rule
/// from the domain. No error quotes a key.
extension TenantConfigReader {
    static let statusSigningFields = ["keys", "offline_validity_hours", "_comment"]
    static let statusSigningKeyFields = ["kid", "key_file", "_comment"]

    func statusSigningSettings(_ node: JSONNode, path: String) throws(TenantConfigError) -> StatusSigningSettings {
        let members = try object(node, path: path, allowed: Self.statusSigningFields, what: "\"signed_status\"")
        let keysNode = try requiredMember(
            "keys", of: members, in: node, at: path, "the signing keys, the first of which signs ([{\"kid\", \"key_file\"}])")
        let keysPath = path + ".keys"
        let keyNodes = try array(keysNode, path: keysPath)
        try rule(keysNode, keysPath) { () throws(TenantRuleError) in try StatusSigningSettings.checkKeyCount(keyNodes.count) }
        var keys: [StatusSigningSettings.Key] = []
        for (index, keyNode) in keyNodes.enumerated() {
            let keyPath = "\(keysPath)[\(index)]"
            let keyMembers = try object(keyNode, path: keyPath, allowed: Self.statusSigningKeyFields, what: "a signing key")
            let kid = try requiredString(
                "kid", of: keyMembers, in: keyNode, at: keyPath, "the key's ID, which signatures name (\"2026-12\")"
            ) { text throws(TenantRuleError) in try StatusSigningSettings.checkKid(text, listedAfter: keys.map(\.kid)) }
            let privateKey = try requiredStringValue(
                "key_file", of: keyMembers, in: keyNode, at: keyPath, "a P-256 private key in PEM"
            ) { text throws(TenantRuleError) in try StatusSigningSettings.keyFile(text, against: directory) }
            keys.append(StatusSigningSettings.Key(kid: kid, privateKey: privateKey))
        }
        let hours = try optionalNumber(
            "offline_validity_hours", of: members, at: path, absent: StatusSigningSettings.defaultOfflineValidityHours
        ) { value, text throws(TenantRuleError) in
            guard let value else { throw TenantRuleError(.invalidValue, "\(text) is not a whole number of hours") }
            try StatusSigningSettings.checkOfflineValidityHours(value)
            return value
        }
        return StatusSigningSettings(keys: keys, offlineValiditySeconds: Int64(hours) * 3_600)
    }
}
