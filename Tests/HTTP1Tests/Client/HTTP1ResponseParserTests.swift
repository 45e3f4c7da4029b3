@testable import HTTP1
import Testing

@Suite struct HTTP1ResponseParserTests {
    /// Feeds `text` in pieces of `step` bytes; returns the response once complete, and how many bytes of the last
    /// piece it consumed.
    private func parse(
        _ text: String, step: Int = .max, limits: HTTP1ResponseParser.Limits = .init(), head: Bool = false,
        closeAfter: Bool = false
    ) throws -> (response: HTTPClientResponse, keepsOpen: Bool)? {
        var parser = HTTP1ResponseParser(limits: limits, requestWasHead: head)
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + min(step, bytes.count))
            let progress = try bytes[offset..<end].withUnsafeBytes { try parser.parse($0) }
            if case .complete = progress { return (parser.response, parser.keepsConnectionOpen) }
            offset = end
        }
        if closeAfter, parser.connectionClosed() { return (parser.response, parser.keepsConnectionOpen) }
        return nil
    }

    @Test(arguments: [1, 2, 7, Int.max])
    func contentLengthBodyInAnyPieces(step: Int) throws {
        let parsed = try #require(
            try parse("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"ok\":true}", step: step))
        #expect(parsed.response.status == 200)
        #expect(parsed.response.headers["content-type"] == "application/json")
        #expect(String(decoding: parsed.response.body, as: UTF8.self) == "{\"ok\":true}")
        #expect(parsed.keepsOpen)
    }

    @Test(arguments: [1, 3, Int.max])
    func chunkedBodyWithExtensionsAndTrailers(step: Int) throws {
        let text = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n"
        let parsed = try #require(try parse(text, step: step))
        #expect(String(decoding: parsed.response.body, as: UTF8.self) == "hello world")
        #expect(parsed.keepsOpen)
    }

    @Test func bodyUntilCloseIsCompleteOnlyWhenTheConnectionCloses() throws {
        #expect(try parse("HTTP/1.1 200 OK\r\n\r\npartial") == nil)
        let parsed = try #require(try parse("HTTP/1.1 200 OK\r\n\r\nall of it", closeAfter: true))
        #expect(String(decoding: parsed.response.body, as: UTF8.self) == "all of it")
        #expect(!parsed.keepsOpen)
    }

    @Test func interimResponsesAreSkipped() throws {
        let parsed = try #require(
            try parse("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n"))
        #expect(parsed.response.status == 204)
        #expect(!parsed.response.headers.contains("link"))
    }

    @Test func noBodyFor204And304AndHead() throws {
        #expect(try parse("HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n")?.response.body == [])
        #expect(try parse("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n", head: true)?.response.status == 200)
    }

    @Test func connectionTokensDecideReuse() throws {
        #expect(try parse("HTTP/1.1 200 OK\r\nConnection: keep-alive, Close\r\nContent-Length: 0\r\n\r\n")?.keepsOpen == false)
        #expect(try parse("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n")?.keepsOpen == false)
        #expect(try parse("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n")?.keepsOpen == true)
    }

    @Test func bareLineFeedsAndAnEmptyReasonAreRead() throws {
        #expect(try parse("HTTP/1.1 503\nRetry-After: 3\nContent-Length: 0\n\n")?.response.headers["retry-after"] == "3")
    }

    @Test(arguments: [
        "HTTP/2 200 OK\r\n\r\n", "HTTP/1.1 20 OK\r\n\r\n", "HTTP/1.1 200OK\r\n\r\n", "ICY 200 OK\r\n\r\n",
        "HTTP/1.1 200 OK\r\nno colon\r\n\r\n", "HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 1, 2\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n",
        "HTTP/1.1 101 Switching Protocols\r\n\r\n", "HTTP/1.1 099 Low\r\n\r\n",
    ])
    func malformedResponsesAreRefused(_ text: String) {
        #expect(throws: HTTPClientError(.malformedResponse, "")) { try parse(text) }
    }

    @Test func limitsBoundTheHeadAndTheBody() {
        let small = HTTP1ResponseParser.Limits(maxHeadBytes: 64, maxBodyBytes: 8)
        let longHeader = "HTTP/1.1 200 OK\r\nX: " + String(repeating: "a", count: 100) + "\r\n\r\n"
        #expect(throws: HTTPClientError(.responseTooLarge, "")) { try parse(longHeader, step: 5, limits: small) }
        #expect(throws: HTTPClientError(.responseTooLarge, "")) {
            try parse("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n", limits: small)
        }
        #expect(throws: HTTPClientError(.responseTooLarge, "")) {
            try parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n5\r\nworld\r\n0\r\n\r\n", limits: small)
        }
        #expect(throws: HTTPClientError(.responseTooLarge, "")) {
            try parse("HTTP/1.1 200 OK\r\n\r\n0123456789", limits: small)
        }
    }
}
