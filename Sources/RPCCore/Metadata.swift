/// Custom request or response metadata: ordered key/value pairs, keys lowercased.
///
/// Keys ending in `-bin` carry binary values, base64-encoded on the wire (unpadded when sent, either form accepted).
public struct Metadata: Sendable, Hashable, Sequence {
    public enum Value: Sendable, Hashable {
        case string(String)
        case binary([UInt8])
    }

    public private(set) var entries: [(key: String, value: Value)] = []

    public init() {}

    /// String entries in order.
    public init(_ pairs: [(String, String)]) {
        for (key, value) in pairs { addString(value, forKey: key) }
    }

    public var isEmpty: Bool { entries.isEmpty }
    public var count: Int { entries.count }

    public mutating func addString(_ value: String, forKey key: String) {
        entries.append((Self.lowercased(key), .string(value)))
    }

    public mutating func addBinary(_ value: [UInt8], forKey key: String) {
        entries.append((Self.lowercased(key), .binary(value)))
    }

    public mutating func add(_ value: Value, forKey key: String) {
        entries.append((Self.lowercased(key), value))
    }

    /// For keys that are lowercase already (HTTP/2 requires it on the wire), skipping the check for capitals.
    public mutating func add(_ value: Value, forLowercaseKey key: String) {
        assert(!Self.hasCapitals(key))
        entries.append((key, value))
    }

    /// Keys compare in lowercase; most are lowercase ASCII already, and then no copy is made.
    private static func lowercased(_ key: String) -> String {
        hasCapitals(key) ? key.lowercased() : key
    }

    /// ASCII capitals, or anything beyond ASCII (which `lowercased()` decides about).
    private static func hasCapitals(_ key: String) -> Bool {
        key.utf8.contains { ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z")) || $0 >= 0x80 }
    }

    /// Appends every entry of `other`, keeping order.
    public mutating func append(contentsOf other: Metadata) {
        entries.append(contentsOf: other.entries)
    }

    /// The first string value for `key`, if any.
    public subscript(string key: String) -> String? {
        // Callers almost always ask in lowercase: look first, check the spelling only when nothing matched.
        if let value = firstString(exactKey: key) { return value }
        return Self.hasCapitals(key) ? firstString(exactKey: key.lowercased()) : nil
    }

    private func firstString(exactKey key: String) -> String? {
        for entry in entries where entry.key == key {
            if case .string(let value) = entry.value { return value }
        }
        return nil
    }

    /// Every binary value for `key`.
    public subscript(binary key: String) -> [[UInt8]] {
        let key = Self.lowercased(key)
        return entries.compactMap { entry in
            guard entry.key == key, case .binary(let value) = entry.value else { return nil }
            return value
        }
    }

    public func makeIterator() -> IndexingIterator<[(key: String, value: Value)]> { entries.makeIterator() }

    public static func == (lhs: Metadata, rhs: Metadata) -> Bool {
        lhs.entries.elementsEqual(rhs.entries) { $0.key == $1.key && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        for entry in entries {
            hasher.combine(entry.key)
            hasher.combine(entry.value)
        }
    }

    /// Whether `key` may be carried as custom metadata: lowercase `[0-9a-z_.-]`, not reserved by HTTP/2 or gRPC.
    public static func isValidCustomKey(_ key: String) -> Bool {
        guard !key.isEmpty, !isTransportHeader(key), !isConnectionHeader(key) else {
            return false
        }
        return key.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F || byte == 0x2E
                || byte == 0x2D
        }
    }

    /// Connection-specific headers that make an HTTP/2 message malformed (RFC 9113 §8.2.2).
    public static func isConnectionHeader(_ key: String) -> Bool {
        // By length first: this runs for every field of every request and response, and most are of none of these.
        switch key.utf8.count {
        case 7: key == "upgrade"
        case 10: key == "connection" || key == "keep-alive"
        case 16: key == "proxy-connection"
        case 17: key == "transfer-encoding"
        default: false
        }
    }

    /// Headers that belong to HTTP, gRPC or Connect themselves and are never surfaced as custom metadata.
    public static func isTransportHeader(_ key: String) -> Bool {
        // Byte comparisons: `String.hasPrefix` compares by Unicode rules, and this runs for every request field.
        let utf8 = key.utf8
        return utf8.first == UInt8(ascii: ":") || utf8.starts(with: "grpc-".utf8) || utf8.starts(with: "connect-".utf8)
            || key == "content-type" || key == "te" || key == "user-agent" || key == "content-length"
            || key == "content-encoding" || key == "accept-encoding"
    }

    /// Whether `key` names a binary entry: it ends in `-bin` (keys are lowercase on the wire).
    public static func isBinaryKey(_ key: String) -> Bool {
        key.utf8.count >= 4 && key.utf8.reversed().starts(with: "nib-".utf8)
    }
}
