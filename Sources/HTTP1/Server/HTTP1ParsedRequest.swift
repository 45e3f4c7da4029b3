public enum HTTP1Version: String, Sendable, Hashable {
    case http1_0 = "HTTP/1.0"
    case http1_1 = "HTTP/1.1"
}

/// One complete request read off an HTTP/1.x connection.
public struct HTTP1ParsedRequest: Sendable, Hashable {
    public var request: HTTPRequest
    public var version: HTTP1Version
    /// Whether the connection may carry another request after the response:
    /// HTTP/1.1 unless `Connection: close`; HTTP/1.0 only with `Connection: keep-alive`.
    public var keepAlive: Bool

    public init(request: HTTPRequest, version: HTTP1Version, keepAlive: Bool) {
        self.request = request
        self.version = version
        self.keepAlive = keepAlive
    }
}
