/// One HTTP request the client sends: the origin it goes to and the message itself.
public struct HTTPClientRequest: Sendable, Hashable {
    public enum Scheme: String, Sendable, Hashable {
        case http, https

        public var defaultPort: Int { self == .https ? 443 : 80 }
    }

    public var method: String
    public var scheme: Scheme
    public var host: String
    public var port: Int
    /// The request target in origin form: the path and query, starting with `/`.
    public var target: String
    /// Sent as given, after `Host` and before `Content-Length` (both set by the client).
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(
        method: String, scheme: Scheme, host: String, port: Int? = nil, target: String, headers: HTTPHeaders = [:],
        body: [UInt8] = []
    ) {
        self.method = method
        self.scheme = scheme
        self.host = host
        self.port = port ?? scheme.defaultPort
        self.target = target
        self.headers = headers
        self.body = body
    }

    /// `host[:port]`, the port left out when it is the scheme's default (as the `Host` header is written).
    public var authority: String {
        let host = self.host.contains(":") ? "[\(self.host)]" : self.host
        return port == scheme.defaultPort ? host : "\(host):\(port)"
    }
}

/// A complete HTTP response.
public struct HTTPClientResponse: Sendable, Hashable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: Int, headers: HTTPHeaders, body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
