/// A complete plain-HTTP response. Framing (`content-length`, `connection`, `transfer-encoding`)
/// is added by the serializer for the protocol in use; handlers should not set it.
public struct HTTPResponse: Sendable, Hashable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// `content-type: text/plain; charset=utf-8`.
    public static func text(_ status: Int, _ text: String) -> HTTPResponse {
        HTTPResponse(
            status: status,
            headers: ["content-type": "text/plain; charset=utf-8"],
            body: Array(text.utf8)
        )
    }

    /// `content-type: application/json`; the bytes are sent as given.
    public static func json(_ status: Int, _ bytes: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["content-type": "application/json"], body: bytes)
    }

    /// `content-type: application/json`; the string is sent as UTF-8.
    public static func json(_ status: Int, _ json: String) -> HTTPResponse {
        .json(status, Array(json.utf8))
    }

    /// No body and no content type.
    public static func empty(_ status: Int) -> HTTPResponse {
        HTTPResponse(status: status)
    }
}
