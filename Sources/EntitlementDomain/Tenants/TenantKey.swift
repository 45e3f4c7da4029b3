import Encodings

/// One configured API key of a tenant: the hash of the key, the name logs and events know it by, and for a secret
/// key what it may do.
public struct TenantKey: Hashable, Sendable {
    public static let maxNameLength = 64

    public let kind: APIKey.Kind
    /// SHA-256 of the whole key.
    public let digest: [UInt8]
    /// As configured, or the start of the hash string (`sk_sha256:1a2b3c4d`) when none is: never the key itself.
    public let name: String
    /// What the key may call beyond its kind; public keys are always ``APIKey/Scope/write`` (their service has no
    /// read-only half).
    public let scope: APIKey.Scope

    /// A key listed with its hash alone: named for its hash, all that its kind may do.
    public init(kind: APIKey.Kind, digest: [UInt8]) {
        self.init(kind: kind, digest: digest, name: nil, scope: .write)
    }

    package init(kind: APIKey.Kind, digest: [UInt8], name: String?, scope: APIKey.Scope) {
        self.kind = kind
        self.digest = digest
        self.name = name ?? kind.hashPrefix + Hex.encode(Array(digest.prefix(4)))
        self.scope = scope
    }

    /// 1–64 characters of `[A-Za-z0-9._@+-]`: a name that reads in a log line and an event as it is.
    package static func checkName(_ name: String) throws(TenantRuleError) {
        let allowed = name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || Array("._@+-".utf8).contains(byte)
        }
        guard !name.isEmpty, name.utf8.count <= maxNameLength, allowed else {
            throw TenantRuleError(
                .invalidValue, "a key name must be 1 to \(maxNameLength) characters of A-Z, a-z, 0-9 and . _ @ + -")
        }
    }

    /// No two keys of a tenant share a name: events name the key that acted, so each name must say which.
    package static func checkNameUnused(_ name: String, by previous: [TenantKey]) throws(TenantRuleError) {
        if previous.contains(where: { $0.name == name }) {
            throw TenantRuleError(.duplicateEntry, "key name \"\(name)\" is already used by another key of this tenant")
        }
    }
}

extension APIKey {
    /// What a secret key may do on AdminService.
    public enum Scope: String, Sendable, Hashable, CaseIterable {
        /// Look customers, their events and webhook deliveries up; count and list them.
        case read
        /// Everything: grants, revokes, redeliveries, refreshes and the App Store support actions too.
        case write

        /// Whether a key of this scope may call a method that needs `required`.
        public func allows(_ required: Scope) -> Bool {
            self == .write || required == .read
        }
    }
}
