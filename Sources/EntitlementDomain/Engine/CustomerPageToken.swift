import BoundedText
import Crypto
import Encodings

/// `ListCustomers` page tokens: the last customer ID listed, bound to the tenant and the filter that listed it.
///
/// The binding is a SHA-256 prefix of the tenant ID and the filter, so a token replayed with other filters or by
/// another tenant is refused instead of silently skipping customers (the ID alone would reveal nothing either: every
/// query is confined to the caller's tenant). Base64url of a version byte, the ID and the binding.
enum CustomerPageToken {
    private static let version: UInt8 = 1
    private static let bindingBytes = 8
    private static let tokenBytes = 1 + 8 + bindingBytes

    static func make(after customerID: Int64, tenantID: String, filter: CustomerFilter) -> String {
        var bytes = [version]
        let id = UInt64(bitPattern: customerID)
        bytes += (0..<8).reversed().map { UInt8(truncatingIfNeeded: id >> ($0 * 8)) }
        bytes += binding(tenantID: tenantID, filter: filter)
        return Base64.encode(bytes, alphabet: .url, padded: false)
    }

    /// The customer ID the next page starts after; nil for an empty token (the first page).
    static func customerID(in token: String, tenantID: String, filter: CustomerFilter) throws(DomainError) -> Int64? {
        guard !token.isEmpty else { return nil }
        guard token.utf8.count <= 64, let bytes = Base64.decode(token, alphabet: .url, padding: .forbidden),
            bytes.count == tokenBytes, bytes[0] == version
        else {
            throw .invalidRequest("page_token \(token.quotedForMessage) is not a token this server issued.")
        }
        guard Array(bytes[9...]) == binding(tenantID: tenantID, filter: filter) else {
            throw .invalidRequest(
                "page_token was issued for other filters: send the filters of the first page, or start again without a token.")
        }
        let id = bytes[1..<9].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Int64(bitPattern: id)
    }

    private static func binding(tenantID: String, filter: CustomerFilter) -> [UInt8] {
        let fields = [
            tenantID, filter.entitlementID ?? "", filter.source.map { "\($0)" } ?? "", filter.productID ?? "",
            "\(filter.state)", filter.changedSince.map { "\($0.milliseconds)" } ?? "",
        ]
        return Array(SHA256.hash(fields.joined(separator: "\u{0}")).prefix(bindingBytes))
    }
}
