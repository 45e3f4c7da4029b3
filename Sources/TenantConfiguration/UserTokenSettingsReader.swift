import EntitlementDomain

/// A tenant's `user_tokens` object (see ``UserTokenSettings`` for the format): the JSON shapes here, every rule from
/// the domain.
extension TenantConfigReader {
    static let userTokenFields = [
        "mode", "issuer", "max_lifetime_seconds", "hs256_secrets", "jwks_file", "jwks_url", "allow_anonymous", "_comment",
    ]

    func userTokenSettings(_ node: JSONNode, path: String) throws(TenantConfigError) -> UserTokenSettings {
        let members = try object(node, path: path, allowed: Self.userTokenFields, what: "\"user_tokens\"")
        let mode = try requiredStringValue(
            "mode", of: members, in: node, at: path, "\"off\", \"observe\" or \"required\""
        ) { text throws(TenantRuleError) in
            guard let mode = UserTokenSettings.Mode(rawValue: text) else {
                throw TenantRuleError(.invalidValue, "the mode must be \"off\", \"observe\" or \"required\"")
            }
            return mode
        }
        let issuer = try requiredString(
            "issuer", of: members, in: node, at: path, "the `iss` of the tokens the tenant's backend signs",
            UserTokenSettings.checkIssuer)
        let lifetime = try optionalNumber(
            "max_lifetime_seconds", of: members, at: path, absent: UserTokenSettings.defaultMaxLifetimeSeconds
        ) { value, text throws(TenantRuleError) in
            guard let value else { throw TenantRuleError(.invalidValue, "\(text) is not a whole number of seconds") }
            try UserTokenSettings.checkMaxLifetime(Int64(value))
            return Int64(value)
        }
        var secrets: [[UInt8]] = []
        if members["hs256_secrets"] != nil {
            secrets = try requiredList(
                "hs256_secrets", of: members, in: node, at: path, "", count: UserTokenSettings.checkSecretCount
            ) { secret, listed throws(TenantRuleError) in
                try UserTokenSettings.checkSecret(secret)
                let bytes = Array(secret.utf8)
                guard !listed.contains(bytes) else { throw TenantRuleError(.duplicateEntry, "this secret is listed twice") }
                return bytes
            }.elements
        }
        let keySource = try signingKeySource(of: members, in: node, at: path)
        try rule(node, path) { () throws(TenantRuleError) in
            try UserTokenSettings.checkHasKeys(mode: mode, secrets: secrets.count, keySource: keySource)
        }
        return UserTokenSettings(
            mode: mode, issuer: issuer, maxLifetimeSeconds: lifetime, hs256Secrets: secrets, keySource: keySource,
            allowsAnonymous: try optionalFlag("allow_anonymous", of: members, at: path, absent: true))
    }
}
