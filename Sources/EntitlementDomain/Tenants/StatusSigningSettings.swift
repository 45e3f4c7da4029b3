public import Crypto
import FileAccess

/// A tenant's `signed_status` configuration: the keys the server signs customer status with, so an app can tell the
/// server's answer from a forged one and trust a cached answer offline for a while.
///
///     "signed_status": {                                    // optional; without it, status is not signed
///       "keys": [                                           // 1 to 5; the FIRST signs, all are published
///         { "kid": "2026-12", "key_file": "status-2026-12.pem" },
///         { "kid": "2027-06", "key_file": "status-2027-06.pem" }
///       ],
///       "offline_validity_hours": 72                        // optional, default 72, 1 to 720: a signed status's
///                                                           // `exp` is this long after it was signed
///     }
///
/// Each key file holds an unencrypted P-256 private key in PEM (`openssl genpkey -algorithm EC -pkeyopt
/// ec_paramgen_curve:P-256`). Rotation: list the new key second (published, apps pin it with their next release),
/// later move it first (it signs), later remove the old one.
public struct StatusSigningSettings: Sendable, Hashable {
    /// One signing key and the `kid` its signatures name.
    public struct Key: Sendable, Hashable {
        public let kid: String
        public let privateKey: P256.PrivateKey

        public init(kid: String, privateKey: P256.PrivateKey) {
            self.kid = kid
            self.privateKey = privateKey
        }

        public static func == (lhs: Key, rhs: Key) -> Bool {
            lhs.kid == rhs.kid && lhs.privateKey.publicKey == rhs.privateKey.publicKey
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(kid)
            hasher.combine(privateKey.publicKey)
        }
    }

    /// The keys as listed: the first signs, every one is published.
    public var keys: [Key]
    /// How long after signing a signed status stays valid (its `exp`): what an app may show offline.
    public var offlineValiditySeconds: Int64

    public static let defaultOfflineValidityHours = 72
    public static let maximumOfflineValidityHours = 720
    public static let maximumKeys = 5

    public init(keys: [Key], offlineValiditySeconds: Int64 = Int64(defaultOfflineValidityHours) * 3_600) {
        self.keys = keys
        self.offlineValiditySeconds = offlineValiditySeconds
    }

    /// The key that signs.
    public var signingKey: Key? { keys.first }

    // MARK: Rules (errors are relative to the checked value, as for the other settings)

    /// These settings checked as a configured `signed_status` would be; error paths are relative to it.
    package func validated() throws(TenantRuleError) -> StatusSigningSettings {
        try TenantRuleError.at(".keys") { () throws(TenantRuleError) in try Self.checkKeyCount(keys.count) }
        var kids: [String] = []
        for (index, key) in keys.enumerated() {
            try TenantRuleError.at(".keys[\(index)].kid") { () throws(TenantRuleError) in
                try Self.checkKid(key.kid, listedAfter: kids)
            }
            kids.append(key.kid)
        }
        try TenantRuleError.at(".offline_validity_hours") { () throws(TenantRuleError) in
            guard offlineValiditySeconds % 3_600 == 0 else {
                throw TenantRuleError(.invalidValue, "the offline validity is a whole number of hours")
            }
            try Self.checkOfflineValidityHours(Int(offlineValiditySeconds / 3_600))
        }
        return self
    }

    package static func checkKeyCount(_ count: Int) throws(TenantRuleError) {
        guard (1...maximumKeys).contains(count) else {
            throw TenantRuleError(
                .invalidValue, "signed_status lists 1 to \(maximumKeys) keys (the first signs; the others are published "
                    + "for rotation)")
        }
    }

    /// 1–64 characters of `A-Z a-z 0-9 . _ -`, unique among the tenant's keys: apps pick the key by it.
    package static func checkKid(_ kid: String, listedAfter listed: [String]) throws(TenantRuleError) {
        let allowed = kid.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == 0x2D || byte == 0x2E || byte == 0x5F
        }
        guard !kid.isEmpty, kid.utf8.count <= 64, allowed else {
            throw TenantRuleError(.invalidValue, "a kid is 1 to 64 characters of A-Z, a-z, 0-9, '.', '_' and '-'")
        }
        guard !listed.contains(kid) else { throw TenantRuleError(.duplicateEntry, "another key has the kid \"\(kid)\"") }
    }

    package static func checkOfflineValidityHours(_ hours: Int) throws(TenantRuleError) {
        guard (1...maximumOfflineValidityHours).contains(hours) else {
            throw TenantRuleError(
                .invalidValue, "offline_validity_hours must be 1 to \(maximumOfflineValidityHours) (30 days)")
        }
    }

    /// The private key in the PEM file at `text` (resolved against `directory`); never quoted in an error.
    package static func keyFile(_ text: String, against directory: String) throws(TenantRuleError) -> P256.PrivateKey {
        if text.isEmpty { throw TenantRuleError(.invalidValue, "the key file path is empty") }
        let resolved = FileSystem.resolve(text, against: directory)
        let bytes = try PlayStoreSettings.keyFileBytes(resolved, what: "status signing key file")
        do throws(CryptoError) {
            return try P256.PrivateKey(pemRepresentation: String(decoding: bytes, as: UTF8.self))
        } catch {
            throw TenantRuleError(
                .unreadableKeyFile,
                "\"\(resolved)\" is not a status signing key: expected an unencrypted P-256 private key in PEM "
                    + "(\"-----BEGIN PRIVATE KEY-----\" or \"-----BEGIN EC PRIVATE KEY-----\")")
        }
    }
}
