import Crypto
import Encodings

/// The `appAccountToken` Identify hands the app for StoreKit's purchase option: a lowercase UUID stable per tenant
/// and canonical app user ID, so a store notification for a purchase that carries it can be attributed to the user
/// before (or without) the device reporting the purchase.
///
/// Derived, not random: UUID version 8 (RFC 9562 §5.8) made of the first 16 bytes of
/// SHA-256("entitlementd app_account_token v1\0" + tenantID + "\0" + appUserID) with the version and variant bits
/// set. Tenants never share a token for the same app user ID, and the token reveals neither.
public enum AppAccountToken {
    static let domain = "entitlementd app_account_token v1\0"

    public static func derive(tenantID: String, appUserID: String) -> String {
        var input = Array(domain.utf8)
        input += tenantID.utf8
        input.append(0)
        input += appUserID.utf8
        var bytes = Array(SHA256.hash(input).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80  // version 8
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // variant 10xx
        let hex = Hex.encode(bytes)
        let digits = Array(hex)
        func part(_ range: Range<Int>) -> String { String(digits[range]) }
        return [part(0..<8), part(8..<12), part(12..<16), part(16..<20), part(20..<32)].joined(separator: "-")
    }

    /// A token as the store reports it, in the form `derive` returns (StoreKit writes lowercase; be lenient).
    public static func normalize(_ token: String) -> String {
        token.lowercased()
    }
}
