import BoundedText
import Crypto
import Encodings

/// Page tokens of the rows behind a metric's point: the last row listed (``LedgerRowKey``), bound to the tenant and
/// the query that listed it, so a token replayed with another query is refused rather than skipping rows.
/// Base64url of a version byte, the row's time, store and direction, an 8-byte binding, then its transaction ID.
enum LedgerRowToken {
    private static let version: UInt8 = 1
    private static let bindingBytes = 8
    /// A store's transaction IDs are far shorter.
    static let maximumTransactionIDBytes = 512

    static func make(after key: LedgerRowKey, query: LedgerRowsQuery) -> String {
        var bytes = [version]
        let time = UInt64(bitPattern: key.occurredAt.milliseconds)
        bytes += (0..<8).reversed().map { UInt8(truncatingIfNeeded: time >> ($0 * 8)) }
        bytes.append(UInt8(Store.allCases.firstIndex(of: key.store) ?? 0))
        bytes.append(UInt8(MovementDirection.allCases.firstIndex(of: key.direction) ?? 0))
        bytes += binding(query)
        bytes += Array(key.transactionID.utf8)
        return Base64.encode(bytes, alphabet: .url, padded: false)
    }

    /// The row the next page starts after; nil for an empty token (the first page).
    static func key(in token: String, query: LedgerRowsQuery) throws(DomainError) -> LedgerRowKey? {
        guard !token.isEmpty else { return nil }
        let header = 1 + 8 + 2 + bindingBytes
        guard token.utf8.count <= (header + maximumTransactionIDBytes) * 4 / 3 + 4,
            let bytes = Base64.decode(token, alphabet: .url, padding: .forbidden), bytes.count > header,
            bytes[0] == version, Int(bytes[9]) < Store.allCases.count, Int(bytes[10]) < MovementDirection.allCases.count,
            let transactionID = String(validating: bytes[header...], as: UTF8.self)
        else {
            throw .invalidRequest("page_token \(token.quotedForMessage) is not a token this server issued.")
        }
        guard Array(bytes[11..<header]) == binding(query) else {
            throw .invalidRequest(
                "page_token was issued for another point or filter: send the first page's request, or start again without a token.")
        }
        let time = bytes[1..<9].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return LedgerRowKey(
            occurredAt: UnixTime(milliseconds: Int64(bitPattern: time)), store: Store.allCases[Int(bytes[9])],
            transactionID: transactionID, direction: MovementDirection.allCases[Int(bytes[10])])
    }

    private static func binding(_ query: LedgerRowsQuery) -> [UInt8] {
        let fields =
            [
                query.tenantID, "\(query.environment)", "\(query.days.lowerBound)", "\(query.days.upperBound)",
                MovementKind.allCases.filter(query.kinds.contains).map(\.name).joined(separator: ","),
                query.currency ?? "\u{1}",
            ] + RevenueDimension.allCases.map { query.values[$0] ?? "\u{1}" } + (query.eventKind.map { [$0.name] } ?? [])
            + (query.coveringAt.map { ["covering \($0.milliseconds)"] } ?? [])
        return Array(SHA256.hash(fields.joined(separator: "\u{0}")).prefix(bindingBytes))
    }
}
