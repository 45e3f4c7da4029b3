import Crypto

/// Grant IDs: `gr_` and 24 random hex digits, made by the server. Anything much longer cannot be one, so it is refused
/// before any lookup (and never quoted back whole).
enum GrantID {
    static let maxBytes = 64

    static func make() -> String { "gr_" + SecureRandom.hex(12) }
}
