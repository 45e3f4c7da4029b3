public import HTTP1

/// An absolute `http`/`https` URL split the way the client sends it: a base from configuration (Google's API root, a
/// tenant's webhook endpoint) that tests can point at a local server, and paths appended to it segment by segment.
public struct OutboundURL: Sendable, Hashable, CustomStringConvertible {
    public var scheme: HTTPClientRequest.Scheme
    public var host: String
    public var port: Int
    /// The path and query, percent-encoded, starting with `/`.
    public var target: String

    /// Parses `http://host[:port][/path][?query]` (IPv6 hosts in brackets); nil for anything else, including
    /// user info, fragments and spaces.
    public init?(_ text: String) {
        let lowered = text.lowercased()
        let rest: Substring
        if lowered.hasPrefix("https://") {
            scheme = .https
            rest = text.dropFirst(8)
        } else if lowered.hasPrefix("http://") {
            scheme = .http
            rest = text.dropFirst(7)
        } else {
            return nil
        }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var target = String(rest[authorityEnd...])
        if target.isEmpty || target.first == "?" { target = "/" + target }
        guard !authority.isEmpty, !authority.contains("@"), !target.contains("#"),
            target.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value < 0x7F })
        else { return nil }
        var host = Substring(authority)
        var port = scheme.defaultPort
        if host.first == "[" {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let after = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if !after.isEmpty {
                guard after.first == ":", let value = Int(after.dropFirst()) else { return nil }
                port = value
            }
        } else if let colon = host.lastIndex(of: ":") {
            guard let value = Int(host[host.index(after: colon)...]) else { return nil }
            port = value
            host = host[..<colon]
        }
        guard !host.isEmpty, (1...65535).contains(port),
            host.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == ":" || $0 == "_" })
        else { return nil }
        self.host = host.lowercased()
        self.port = port
        self.target = target
    }

    /// This URL with `segments` appended to its path, each percent-encoded (a `/` in a segment is encoded, so a
    /// purchase token cannot walk the path), and `query` replacing any query.
    public func appending(_ segments: [String], query: [(String, String)] = []) -> OutboundURL {
        var copy = self
        var path = target.split(separator: "?", maxSplits: 1).first.map(String.init) ?? "/"
        if path.hasSuffix("/") { path.removeLast() }
        for segment in segments { path += "/" + Self.percentEncoded(segment, keeping: Self.segmentCharacters) }
        if !query.isEmpty {
            path += "?" + query.map {
                Self.percentEncoded($0.0, keeping: Self.queryCharacters) + "="
                    + Self.percentEncoded($0.1, keeping: Self.queryCharacters)
            }.joined(separator: "&")
        }
        copy.target = path.isEmpty ? "/" : path
        return copy
    }

    public var description: String {
        let host = self.host.contains(":") ? "[\(self.host)]" : self.host
        let port = self.port == scheme.defaultPort ? "" : ":\(self.port)"
        return "\(scheme.rawValue)://\(host)\(port)\(target)"
    }

    /// Whether the host is this machine (plain HTTP is allowed there without saying so).
    public var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// RFC 3986 unreserved characters, plus `:` and `@` that a segment may hold (Google's `…/tokens/T:acknowledge`).
    static let segmentCharacters = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:@".utf8)
    static let queryCharacters = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)

    /// `text` as a query or `application/x-www-form-urlencoded` value: everything but RFC 3986's unreserved characters
    /// percent-encoded.
    public static func queryEncoded(_ text: String) -> String { percentEncoded(text, keeping: queryCharacters) }

    static func percentEncoded(_ text: String, keeping allowed: Set<UInt8>) -> String {
        var encoded = ""
        for byte in text.utf8 {
            if allowed.contains(byte) {
                encoded.unicodeScalars.append(UnicodeScalar(byte))
            } else {
                encoded += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
            }
        }
        return encoded
    }
}
