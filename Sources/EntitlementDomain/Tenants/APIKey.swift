import Crypto
import Encodings

/// API keys: `pk_` + 64 hex digits for SDKs (EntitlementService only), `sk_` + 64 hex digits for servers and admins
/// (AdminService). The server never stores a key, only its hash string:
///
///     pk_sha256:<64 lowercase hex digits of SHA-256 of the whole key, prefix included>
///     sk_sha256:<...>
///
/// The hash string repeats the key's kind so that configuration loading can tell a public key's hash filed under
/// `secret_keys` (or the reverse) and refuse it; a hash alone cannot say what it was made from.
public enum APIKey {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// `pk_...`: may call EntitlementService only.
        case publicKey
        /// `sk_...`: may call AdminService.
        case secretKey

        /// What every key of this kind starts with.
        public var prefix: String {
            switch self {
            case .publicKey: "pk_"
            case .secretKey: "sk_"
            }
        }

        /// What every hash string of this kind starts with.
        public var hashPrefix: String { prefix + "sha256:" }

        /// The tenant configuration field that lists this kind's hashes.
        public var configField: String {
            switch self {
            case .publicKey: "public_keys"
            case .secretKey: "secret_keys"
            }
        }

        /// "public", "secret", for messages.
        public var adjective: String {
            switch self {
            case .publicKey: "public"
            case .secretKey: "secret"
            }
        }
    }

    /// Random bytes in a generated key, written as twice as many hex digits.
    public static let randomByteCount = 32
    /// Longer presented keys are refused without hashing; generated keys are 67 bytes.
    public static let maxByteCount = 256

    /// A new key: the kind's prefix and 32 random bytes from the CSPRNG as lowercase hex.
    public static func generate(_ kind: Kind) -> String {
        kind.prefix + SecureRandom.hex(randomByteCount)
    }

    /// The kind a key claims by its prefix; nil when it has neither prefix or nothing after it.
    public static func kind(of key: String) -> Kind? {
        for kind in Kind.allCases where key.utf8.starts(with: kind.prefix.utf8) {
            return key.utf8.count > kind.prefix.utf8.count ? kind : nil
        }
        return nil
    }

    /// SHA-256 of the whole key's UTF-8 bytes.
    public static func digest(_ key: String) -> [UInt8] {
        SHA256.hash(key)
    }

    /// The string to put in the tenant configuration for `key` (`entctl hash-key`): `pk_sha256:<hex>` or
    /// `sk_sha256:<hex>`. nil when `key` does not start with `pk_` or `sk_`.
    public static func hashString(_ key: String) -> String? {
        guard let kind = kind(of: key) else { return nil }
        return kind.hashPrefix + Hex.encode(digest(key))
    }

    /// A configured hash string's kind and digest; nil unless it is `pk_sha256:` or `sk_sha256:` followed by exactly
    /// 64 hex digits (either case).
    public static func parseHashString(_ text: String) -> (kind: Kind, digest: [UInt8])? {
        for kind in Kind.allCases where text.utf8.starts(with: kind.hashPrefix.utf8) {
            let hex = String(decoding: text.utf8.dropFirst(kind.hashPrefix.utf8.count), as: UTF8.self)
            guard hex.utf8.count == 2 * SHA256.byteCount, let digest = Hex.decode(hex) else { return nil }
            return (kind, digest)
        }
        return nil
    }

    /// The digest of a configured hash string filed under `kind`'s list; refuses the other kind's hash, a key
    /// pasted in place of its hash, and anything else that is not a hash string. Never repeats the value.
    package static func digest(ofHashString text: String, listedAs kind: Kind) throws(TenantRuleError) -> [UInt8] {
        if let (parsedKind, digest) = parseHashString(text) {
            guard parsedKind == kind else {
                throw TenantRuleError(
                    .keyKindMismatch,
                    "a \(parsedKind.adjective) key's hash (\(parsedKind.hashPrefix)...) is listed under "
                        + "\"\(kind.configField)\"; it belongs in \"\(parsedKind.configField)\"")
            }
            return digest
        }
        // Never repeat the value: it may be a key pasted by mistake.
        if Self.kind(of: text) != nil && !text.contains(":") {
            throw TenantRuleError(
                .invalidValue,
                "this looks like an API key itself, not its hash; store only the output of `entctl hash-key`, "
                    + "and treat a key that has been written to a file as leaked: make a new one")
        }
        throw TenantRuleError(
            .invalidValue,
            "expected \"\(kind.hashPrefix)\" followed by the 64 hex digits of the key's SHA-256 "
                + "(the output of `entctl hash-key`)")
    }
}
