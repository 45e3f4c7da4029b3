/// A complete plain-HTTP request, independent of the protocol it arrived on (HTTP/1.x or HTTP/2).
public struct HTTPRequest: Sendable, Hashable {
    /// Case-sensitive, as sent (`GET`, `POST`, ...).
    public var method: String
    /// The path of the request target, still percent-encoded, without the query. Always starts with `/`.
    public var path: String
    /// Everything after the first `?`, still percent-encoded; nil when the target has no `?`.
    public var query: String?
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// Filled by `HTTPRouter` from `{name}` segments of the matched pattern, percent-decoded.
    public var pathParameters: [String: String]
    /// The client's address as the server saw it (`HOST:PORT`, IPv6 in brackets); empty when not from a socket.
    public var peer = ""

    /// Whether the request came from this machine (127.0.0.0/8 or ::1, also IPv4-mapped).
    public var isFromLoopback: Bool {
        peer.hasPrefix("127.") || peer.hasPrefix("[::1]:") || peer.hasPrefix("[::ffff:127.")
    }

    public init(
        method: String,
        path: String,
        query: String? = nil,
        headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8] = [],
        pathParameters: [String: String] = [:]
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.pathParameters = pathParameters
    }

    /// Splits an origin-form target (an HTTP/2 `:path`) at the first `?`.
    public init(method: String, target: String, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        // Searched in the contiguous bytes: a `String.UTF8View` search costs a call per byte.
        var target = target
        let offset = target.withUTF8 { $0.firstIndex(of: UInt8(ascii: "?")) }
        if let offset {
            let mark = target.utf8.index(target.utf8.startIndex, offsetBy: offset)
            let afterMark = target.utf8.index(after: mark)
            self.init(
                method: method,
                path: String(target[..<mark]),
                query: String(target[afterMark...]),
                headers: headers,
                body: body
            )
        } else {
            self.init(method: method, path: target, headers: headers, body: body)
        }
    }

    /// The path and query as they appeared in the request target.
    public var target: String {
        if let query { return path + "?" + query }
        return path
    }
}
