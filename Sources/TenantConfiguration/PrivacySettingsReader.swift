import EntitlementDomain

/// A tenant's `privacy` object (see ``PrivacySettings`` for the format).
extension TenantConfigReader {
    static let privacyFields = ["erase_accounting_records", "_comment"]

    func privacySettings(_ node: JSONNode, path: String) throws(TenantConfigError) -> PrivacySettings {
        let members = try object(node, path: path, allowed: Self.privacyFields, what: "\"privacy\"")
        return PrivacySettings(
            erasesAccountingRecords: try optionalFlag(
                "erase_accounting_records", of: members, at: path, absent: PrivacySettings.defaults.erasesAccountingRecords))
    }
}
