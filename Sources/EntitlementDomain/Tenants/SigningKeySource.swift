import Encodings
import FileAccess

/// Where a tenant's signing keys come from, as `jwks_url` or `jwks_file` configure them: Google's push-token keys
/// (``PlayNotificationSettings``), a backend's user-token keys (``UserTokenSettings``).
public enum SigningKeySource: Sendable, Hashable {
    /// A JWKS URL, fetched and cached.
    case url(String)
    /// A JWKS file read when the tenant loads (absolute path).
    case file(String)

    // MARK: Rules (errors are relative to the object holding `jwks_url` or `jwks_file`)

    /// This source checked as a configured one: a URL as ``checkURL(_:)`` says, a file's path resolved against
    /// `directory` and its contents a JWKS.
    package func validated(directory: String) throws(TenantRuleError) -> SigningKeySource {
        switch self {
        case .url(let url):
            try TenantRuleError.at(".jwks_url") { () throws(TenantRuleError) in try Self.checkURL(url) }
            return self
        case .file(let path):
            return .file(
                try TenantRuleError.at(".jwks_file") { () throws(TenantRuleError) in try Self.file(path, against: directory) })
        }
    }

    /// At most one of `jwks_url` and `jwks_file`. The error is at `.jwks_file`.
    package static func checkOneGiven(url: Bool, file: Bool) throws(TenantRuleError) {
        if url && file {
            throw TenantRuleError(
                .conflictingFields, at: ".jwks_file",
                "\"jwks_url\" and \"jwks_file\" are both given; give at most one: the URL of the signing keys, or a "
                    + "file holding them")
        }
    }

    /// A JWKS URL: see ``PlayStoreSettings/checkServiceURL(_:allowingQuery:allowingPlainHTTP:)``.
    package static func checkURL(_ text: String) throws(TenantRuleError) {
        try PlayStoreSettings.checkServiceURL(text)
    }

    /// The JWKS file's absolute path (`text` resolved against `directory`), once it is readable and a JSON object
    /// with a non-empty `keys` array of objects. The keys are left for their verifier to parse.
    package static func file(_ text: String, against directory: String) throws(TenantRuleError) -> String {
        if text.isEmpty { throw TenantRuleError(.invalidValue, "the JWKS file path is empty") }
        let resolved = FileSystem.resolve(text, against: directory)
        let json = try PlayStoreSettings.keyFileJSON(resolved, what: "JWKS file")
        if let problem = jwksProblem(json) {
            throw TenantRuleError(
                .unreadableKeyFile, "\"\(resolved)\" is not a JWKS file (a JSON object with a \"keys\" array): \(problem)")
        }
        return resolved
    }

    /// What is wrong with a JWKS file's JSON, or nil.
    private static func jwksProblem(_ json: JSONValue) -> String? {
        guard case .object = json else { return "it is not a JSON object" }
        guard case .array(let keys) = json["keys"] else { return "it has no \"keys\" array" }
        if keys.isEmpty { return "its \"keys\" is empty, so no token could be verified" }
        let allObjects = keys.allSatisfy { key in
            if case .object = key { true } else { false }
        }
        if !allObjects { return "its \"keys\" holds something other than objects" }
        return nil
    }
}
