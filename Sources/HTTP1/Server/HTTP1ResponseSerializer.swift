/// Writes an `HTTPResponse` as HTTP/1.1 bytes. Framing is the serializer's: `content-length`,
/// `transfer-encoding` and `connection` set by the handler are dropped and replaced.
public enum HTTP1ResponseSerializer {
    /// ```
    /// HTTP/1.1 <status> <reason>\r\n
    /// <handler headers, in order>\r\n
    /// content-length: <body count>\r\n      (not for 1xx, 204, 304)
    /// connection: close\r\n                  (when !keepAlive; `keep-alive` for a kept-alive HTTP/1.0 client)
    /// \r\n
    /// <body>                                 (not for HEAD, 1xx, 204, 304)
    /// ```
    /// Header names that are not tokens are skipped and control characters in values become spaces,
    /// so a handler echoing client data cannot split the response.
    public static func serialize(
        _ response: HTTPResponse,
        keepAlive: Bool,
        headRequest: Bool = false,
        requestVersion: HTTP1Version = .http1_1
    ) -> [UInt8] {
        let status = (100...999).contains(response.status) ? response.status : 500
        let bodyAllowed = status >= 200 && status != 204 && status != 304
        var output = head(
            status: status, headers: response.headers, framing: bodyAllowed ? .contentLength(response.body.count) : .none,
            keepAlive: keepAlive, requestVersion: requestVersion, reserving: bodyAllowed && !headRequest ? response.body.count : 0)
        if bodyAllowed && !headRequest {
            output.append(contentsOf: response.body)
        }
        return output
    }

    /// The head of a response whose body follows in chunks (a gRPC-Web call's: its length is not known up front),
    /// framed like ``serialize(_:keepAlive:headRequest:requestVersion:)``'s but with `transfer-encoding: chunked`.
    public static func chunkedHead(status: Int, headers: HTTPHeaders, keepAlive: Bool) -> [UInt8] {
        head(status: status, headers: headers, framing: .chunked, keepAlive: keepAlive, requestVersion: .http1_1, reserving: 0)
    }

    /// One chunk of a chunked body: its size in hex, CRLF, the bytes, CRLF. Empty input gives nothing (an empty
    /// chunk would end the body).
    public static func chunk(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        guard !bytes.isEmpty else { return [] }
        var output = Array(String(bytes.count, radix: 16).utf8) + crlf
        output.append(contentsOf: bytes)
        output.append(contentsOf: crlf)
        return output
    }

    /// The end of a chunked body (no trailer fields).
    public static let lastChunk: [UInt8] = Array("0\r\n\r\n".utf8)

    private enum Framing {
        case none
        case contentLength(Int)
        case chunked
    }

    private static func head(
        status: Int, headers: HTTPHeaders, framing: Framing, keepAlive: Bool, requestVersion: HTTP1Version, reserving: Int
    ) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(128 + headers.count * 48 + reserving)

        output.append(contentsOf: "HTTP/1.1 ".utf8)
        output.append(contentsOf: String(status).utf8)
        output.append(HTTP1Grammar.space)
        output.append(contentsOf: reasonPhrase(for: status).utf8)
        output.append(contentsOf: crlf)

        for field in headers.fields {
            switch field.name {
            case "content-length", "transfer-encoding", "connection":
                continue
            default:
                guard !field.name.isEmpty, field.name.utf8.allSatisfy(HTTP1Grammar.isTokenChar) else { continue }
            }
            output.append(contentsOf: field.name.utf8)
            output.append(UInt8(ascii: ":"))
            output.append(HTTP1Grammar.space)
            for byte in field.value.utf8 {
                output.append(HTTP1Grammar.isFieldValueChar(byte) ? byte : HTTP1Grammar.space)
            }
            output.append(contentsOf: crlf)
        }
        switch framing {
        case .none:
            break
        case .contentLength(let count):
            output.append(contentsOf: "content-length: ".utf8)
            output.append(contentsOf: String(count).utf8)
            output.append(contentsOf: crlf)
        case .chunked:
            output.append(contentsOf: "transfer-encoding: chunked".utf8)
            output.append(contentsOf: crlf)
        }
        if !keepAlive {
            output.append(contentsOf: "connection: close".utf8)
            output.append(contentsOf: crlf)
        } else if requestVersion == .http1_0 {
            output.append(contentsOf: "connection: keep-alive".utf8)
            output.append(contentsOf: crlf)
        }
        output.append(contentsOf: crlf)
        return output
    }

    /// The interim response to `Expect: 100-continue`.
    public static let continueResponse: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    private static let crlf: [UInt8] = [HTTP1Grammar.cr, HTTP1Grammar.lf]

    /// RFC 9110 reason phrases; empty for codes without one (the status line then ends in `<status> `).
    public static func reasonPhrase(for status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 101: "Switching Protocols"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 203: "Non-Authoritative Information"
        case 204: "No Content"
        case 205: "Reset Content"
        case 206: "Partial Content"
        case 300: "Multiple Choices"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 402: "Payment Required"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 407: "Proxy Authentication Required"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 411: "Length Required"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 416: "Range Not Satisfiable"
        case 417: "Expectation Failed"
        case 421: "Misdirected Request"
        case 422: "Unprocessable Content"
        case 425: "Too Early"
        case 426: "Upgrade Required"
        case 428: "Precondition Required"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 451: "Unavailable For Legal Reasons"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        case 507: "Insufficient Storage"
        case 511: "Network Authentication Required"
        default: ""
        }
    }
}
