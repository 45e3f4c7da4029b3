import Testing

@testable import HTTP1

@Suite("HTTP1 response serializer")
struct HTTP1ResponseSerializerTests {
    private func text(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    @Test func keepAliveTextResponse() {
        let bytes = HTTP1ResponseSerializer.serialize(.text(200, "ok\n"), keepAlive: true)
        #expect(text(bytes) == "HTTP/1.1 200 OK\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: 3\r\n\r\nok\n")
    }

    @Test func closingJSONResponse() {
        let bytes = HTTP1ResponseSerializer.serialize(.json(404, Array("{}".utf8)), keepAlive: false)
        #expect(bytes == Array("HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}".utf8))
    }

    @Test func headKeepsContentLengthButNoBody() {
        let bytes = HTTP1ResponseSerializer.serialize(.text(200, "hello"), keepAlive: true, headRequest: true)
        #expect(text(bytes) == "HTTP/1.1 200 OK\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: 5\r\n\r\n")
    }

    @Test func noContentHasNoLengthOrBody() {
        var response = HTTPResponse.empty(204)
        response.body = Array("ignored".utf8)
        #expect(text(HTTP1ResponseSerializer.serialize(response, keepAlive: true)) == "HTTP/1.1 204 No Content\r\n\r\n")
        #expect(text(HTTP1ResponseSerializer.serialize(.empty(304), keepAlive: false)) == "HTTP/1.1 304 Not Modified\r\nconnection: close\r\n\r\n")
    }

    @Test func emptyBodyHasZeroLength() {
        #expect(text(HTTP1ResponseSerializer.serialize(.empty(200), keepAlive: true)) == "HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n")
    }

    @Test func framingHeadersFromHandlersAreReplaced() {
        let response = HTTPResponse(
            status: 200,
            headers: ["Content-Length": "999", "Transfer-Encoding": "chunked", "Connection": "keep-alive", "X-A": "b"],
            body: [0x41]
        )
        let bytes = HTTP1ResponseSerializer.serialize(response, keepAlive: false)
        #expect(text(bytes) == "HTTP/1.1 200 OK\r\nx-a: b\r\ncontent-length: 1\r\nconnection: close\r\n\r\nA")
    }

    @Test func headerInjectionIsNeutralised() {
        let response = HTTPResponse(
            status: 200,
            headers: ["x-echo": "a\r\nset-cookie: evil", "bad name": "dropped", "x-tab": "a\tb"]
        )
        let bytes = HTTP1ResponseSerializer.serialize(response, keepAlive: true)
        #expect(text(bytes) == "HTTP/1.1 200 OK\r\nx-echo: a  set-cookie: evil\r\nx-tab: a\tb\r\ncontent-length: 0\r\n\r\n")
    }

    @Test func http10KeepAliveIsAnnounced() {
        let bytes = HTTP1ResponseSerializer.serialize(.empty(200), keepAlive: true, requestVersion: .http1_0)
        #expect(text(bytes) == "HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: keep-alive\r\n\r\n")
    }

    @Test func reasonPhrases() {
        #expect(text(HTTP1ResponseSerializer.serialize(.empty(299), keepAlive: true)) == "HTTP/1.1 299 \r\ncontent-length: 0\r\n\r\n")
        #expect(text(HTTP1ResponseSerializer.serialize(.empty(42), keepAlive: true)).hasPrefix("HTTP/1.1 500 Internal Server Error\r\n"))
        for (status, reason) in [
            (400, "Bad Request"), (405, "Method Not Allowed"), (413, "Content Too Large"), (414, "URI Too Long"),
            (431, "Request Header Fields Too Large"), (501, "Not Implemented"), (503, "Service Unavailable"),
            (505, "HTTP Version Not Supported"),
        ] {
            #expect(HTTP1ResponseSerializer.reasonPhrase(for: status) == reason)
        }
    }

    @Test func parseErrorResponse() {
        let error = HTTP1ParseError(.missingHost, "HTTP/1.1 request has no Host header field")
        let bytes = HTTP1ResponseSerializer.serialize(error.response, keepAlive: false)
        #expect(text(bytes) == "HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: 42\r\nconnection: close\r\n\r\nHTTP/1.1 request has no Host header field\n")
    }

    @Test func roundTripThroughTheRouter() async throws {
        let router = HTTPRouter { $0.register("GET", "/healthz") { _ in .text(200, "ok") } }
        var parser = HTTP1RequestParser()
        parser.append(Array("HEAD /healthz HTTP/1.1\r\nHost: a\r\nConnection: close\r\nX-Request-ID: r-1\r\n\r\n".utf8))
        let parsed = try #require(try parser.nextRequest())
        let response = await router.respond(to: parsed.request)
        let bytes = HTTP1ResponseSerializer.serialize(
            response, keepAlive: parsed.keepAlive, headRequest: parsed.request.method == "HEAD", requestVersion: parsed.version
        )
        #expect(text(bytes) == "HTTP/1.1 200 OK\r\ncontent-type: text/plain; charset=utf-8\r\nx-request-id: r-1\r\ncontent-length: 2\r\nconnection: close\r\n\r\n")
    }

    @Test func chunkedHeadReplacesFramingHeaders() {
        let head = HTTP1ResponseSerializer.chunkedHead(
            status: 200, headers: ["content-type": "application/grpc-web+proto", "content-length": "9"], keepAlive: true)
        #expect(
            String(decoding: head, as: UTF8.self)
                == "HTTP/1.1 200 OK\r\ncontent-type: application/grpc-web+proto\r\ntransfer-encoding: chunked\r\n\r\n")
    }

    @Test func chunksAndTheLastChunk() {
        let bytes = [UInt8](repeating: 0x41, count: 26)
        let chunk = bytes.withUnsafeBytes { HTTP1ResponseSerializer.chunk($0) }
        #expect(chunk == Array("1a\r\n".utf8) + bytes + Array("\r\n".utf8))
        #expect([UInt8]().withUnsafeBytes { HTTP1ResponseSerializer.chunk($0) }.isEmpty, "an empty chunk would end the body")
        #expect(HTTP1ResponseSerializer.lastChunk == Array("0\r\n\r\n".utf8))
    }
}
