/// Writes a request as HTTP/1.1 bytes, refusing what would break the framing (a line break in a header, a space in
/// the target): such a request is a bug or an injection, never something to send.
enum HTTP1RequestSerializer {
    static func serialize(_ request: HTTPClientRequest) throws(HTTPClientError) -> [UInt8] {
        guard !request.method.isEmpty, request.method.utf8.allSatisfy(HTTP1Grammar.isTokenChar) else {
            throw HTTPClientError(.invalidRequest, "the method \(HTTP1Grammar.quote(Array(request.method.utf8))) is not a token")
        }
        guard request.target.first == "/", request.target.utf8.allSatisfy(HTTP1Grammar.isTargetChar) else {
            throw HTTPClientError(
                .invalidRequest,
                "the target \(HTTP1Grammar.quote(Array(request.target.utf8))) is not a percent-encoded path starting with /")
        }
        guard !request.host.isEmpty, request.host.utf8.allSatisfy(HTTP1Grammar.isAuthorityChar) else {
            throw HTTPClientError(.invalidRequest, "the host \(HTTP1Grammar.quote(Array(request.host.utf8))) is not a host name")
        }
        var head = "\(request.method) \(request.target) HTTP/1.1\r\nhost: \(request.authority)\r\n"
        for (name, value) in request.headers {
            guard !name.isEmpty, name.utf8.allSatisfy(HTTP1Grammar.isTokenChar) else {
                throw HTTPClientError(.invalidRequest, "the header name \(HTTP1Grammar.quote(Array(name.utf8))) is not a token")
            }
            guard name != "host", name != "content-length", name != "transfer-encoding" else {
                throw HTTPClientError(.invalidRequest, "the client sets the \(name) header itself")
            }
            guard value.utf8.allSatisfy(HTTP1Grammar.isFieldValueChar) else {
                throw HTTPClientError(.invalidRequest, "the value of header \(name) holds a control character")
            }
            head += "\(name): \(value)\r\n"
        }
        // Every request says how long its body is, so the server never waits for one that is not coming.
        if !request.body.isEmpty || !["GET", "HEAD", "DELETE", "OPTIONS"].contains(request.method) {
            head += "content-length: \(request.body.count)\r\n"
        }
        return Array((head + "\r\n").utf8) + request.body
    }
}
