import TestSupport
import Testing

@testable import HTTP1

/// Feeds `bytes` in pieces of `chunk` bytes (nil: all at once), draining requests after every append.
private func parse(
    _ bytes: [UInt8],
    chunk: Int? = nil,
    limits: HTTP1Limits = HTTP1Limits()
) throws(HTTP1ParseError) -> [HTTP1ParsedRequest] {
    var parser = HTTP1RequestParser(limits: limits)
    var requests: [HTTP1ParsedRequest] = []
    var offset = 0
    repeat {
        let end = chunk.map { min(offset + $0, bytes.count) } ?? bytes.count
        parser.append(bytes[offset..<end])
        offset = end
        while let request = try parser.nextRequest() { requests.append(request) }
    } while offset < bytes.count
    return requests
}

private func parse(_ text: String, chunk: Int? = nil, limits: HTTP1Limits = HTTP1Limits()) throws(HTTP1ParseError) -> [HTTP1ParsedRequest] {
    try parse(Array(text.utf8), chunk: chunk, limits: limits)
}

/// The error a request produces, fed all at once and byte by byte (which must agree).
private func parseError(_ bytes: [UInt8], limits: HTTP1Limits = HTTP1Limits()) -> HTTP1ParseError? {
    var whole: HTTP1ParseError?
    var byByte: HTTP1ParseError?
    do { _ = try parse(bytes, limits: limits) } catch { whole = error }
    do { _ = try parse(bytes, chunk: 1, limits: limits) } catch { byByte = error }
    #expect(whole?.code == byByte?.code, "all-at-once and byte-by-byte disagree: \(String(describing: whole)) vs \(String(describing: byByte))")
    return whole
}

private func parseError(_ text: String, limits: HTTP1Limits = HTTP1Limits()) -> HTTP1ParseError? {
    parseError(Array(text.utf8), limits: limits)
}

private let chunkedRequest =
    "POST /upload?x=1 HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\n\r\n"
    + "5;name=value;flag\r\nhello\r\n"
    + "7 ; q=\"a \\\"quoted\\\" ext\"\r\n, world\r\n"
    + "0\r\nX-Checksum: abc\r\nX-Other:  def \r\n\r\n"

@Suite("HTTP1 request parser")
struct HTTP1RequestParserTests {
    @Test func parsesSimpleGet() throws {
        let requests = try parse("GET /v1/items?limit=10&x=%20 HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\nX-Multi: a\r\nx-multi: b\r\n\r\n")
        try #require(requests.count == 1)
        let parsed = requests[0]
        #expect(parsed.version == .http1_1)
        #expect(parsed.keepAlive)
        #expect(parsed.request.method == "GET")
        #expect(parsed.request.path == "/v1/items")
        #expect(parsed.request.query == "limit=10&x=%20")
        #expect(parsed.request.headers["HOST"] == "example.com")
        #expect(parsed.request.headers.values(for: "x-multi") == ["a", "b"])
        #expect(parsed.request.headers.map(\.name) == ["host", "accept", "x-multi", "x-multi"])
        #expect(parsed.request.body.isEmpty)
        #expect(parsed.request.pathParameters.isEmpty)
    }

    @Test func trimsOptionalWhitespaceAndKeepsObsText() throws {
        var bytes = Array("GET / HTTP/1.1\r\nHost: a\r\nX-Value: \t spaced  value \t\r\nX-Utf8: ".utf8)
        bytes += Array("café".utf8) + Array("\r\nX-Empty:\r\n\r\n".utf8)
        let request = try #require(try parse(bytes).first).request
        #expect(request.headers["x-value"] == "spaced  value")
        #expect(request.headers["x-utf8"] == "café")
        #expect(request.headers["x-empty"] == "")
    }

    struct Sample: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let text: String
    }

    @Test(arguments: [
        Sample(testDescription: "GET", text: "GET / HTTP/1.1\r\nHost: a\r\n\r\n"),
        Sample(testDescription: "Content-Length body", text: "POST /p HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\nhello world"),
        Sample(testDescription: "chunked body", text: chunkedRequest),
        Sample(
            testDescription: "pipelined",
            text: "GET /a HTTP/1.1\r\nHost: a\r\n\r\nPOST /b HTTP/1.0\r\nContent-Length: 3\r\n\r\nabc\r\nGET /c HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"
        ),
    ])
    func byteByByteEqualsAllAtOnce(_ sample: Sample) throws {
        let text = sample.text
        let whole = try parse(text)
        #expect(!whole.isEmpty)
        #expect(try parse(text, chunk: 1) == whole)
        #expect(try parse(text, chunk: 2) == whole)
        #expect(try parse(text, chunk: 7) == whole)
    }

    @Test func randomSplitsOfAPipelinedStreamAgree() throws {
        let stream = Array(
            ("GET /a HTTP/1.1\r\nHost: a\r\n\r\n" + chunkedRequest
                + "PUT /b HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\n\r\n1234").utf8
        )
        let expected = try parse(stream)
        #expect(expected.count == 3)
        var generator = SeededRandomNumberGenerator(seed: 42)
        for _ in 0..<200 {
            var parser = HTTP1RequestParser()
            var requests: [HTTP1ParsedRequest] = []
            var offset = 0
            while offset < stream.count {
                let end = min(stream.count, offset + Int(generator.next() % 23) + 1)
                parser.append(stream[offset..<end])
                offset = end
                while let request = try parser.nextRequest() { requests.append(request) }
            }
            #expect(requests == expected)
        }
    }

    /// Found by `Scripts/fuzz http1`: a request line with a bad method byte and a bare LF was reported as one or the
    /// other depending on how the bytes were split into reads. The earliest problem in the stream wins.
    @Test(arguments: [
        ([0x00, 0x01, 0x0A], HTTP1ParseError.Code.invalidMethod),
        (Array("GE\u{7F}T / HTTP/1.1\n".utf8), .invalidMethod),
        (Array("GET / HTTP/1.1 \n".utf8), .invalidRequestLine),
        (Array("GET / HTTP/1.1\n".utf8), .invalidLineEnding),
    ])
    func theEarliestProblemIsReportedHoweverTheBytesArrive(bytes: [UInt8], code: HTTP1ParseError.Code) {
        for chunk in [nil, 1, 2, 3, 5] {
            var found: HTTP1ParseError?
            do { _ = try parse(bytes, chunk: chunk) } catch { found = error }
            #expect(found?.code == code, "read size \(String(describing: chunk)): \(String(describing: found))")
        }
    }

    @Test func pipelinedRequestsInOneBuffer() throws {
        var parser = HTTP1RequestParser()
        parser.append(Array("GET /first HTTP/1.1\r\nHost: a\r\n\r\nPOST /second HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nokGET /thi".utf8))
        let first = try #require(try parser.nextRequest())
        #expect(first.request.path == "/first")
        let second = try #require(try parser.nextRequest())
        #expect(second.request.path == "/second")
        #expect(second.request.body == Array("ok".utf8))
        #expect(try parser.nextRequest() == nil)
        #expect(parser.hasPartialRequest)
        parser.append(Array("rd HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
        #expect(try parser.nextRequest()?.request.path == "/third")
        #expect(try parser.nextRequest() == nil)
        #expect(!parser.hasPartialRequest)
        #expect(parser.bufferedByteCount == 0)
        parser.append(Array("\r\n".utf8))  // a stray CRLF after a request is not the start of one
        #expect(try parser.nextRequest() == nil)
        #expect(!parser.hasPartialRequest)
    }

    @Test func chunkedBodyWithExtensionsAndTrailers() throws {
        let parsed = try #require(try parse(chunkedRequest).first)
        #expect(parsed.request.body == Array("hello, world".utf8))
        #expect(parsed.request.path == "/upload")
        #expect(parsed.request.query == "x=1")
        // Trailers are validated and discarded.
        #expect(parsed.request.headers["x-checksum"] == nil)
        #expect(parsed.request.headers["transfer-encoding"] == "chunked")
    }

    @Test func chunkedBodyWithUppercaseHexAndLeadingZeros() throws {
        let text = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: Chunked\r\n\r\n00A\r\n0123456789\r\n000\r\n\r\n"
        #expect(try parse(text).first?.request.body == Array("0123456789".utf8))
    }

    @Test func contentLengthBodyAndIdenticalDuplicates() throws {
        let text = "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 005\r\n\r\nhello"
        #expect(try parse(text).first?.request.body == Array("hello".utf8))
    }

    @Test func requestsWithoutBodyHaveEmptyBody() throws {
        for method in ["GET", "HEAD", "POST", "DELETE"] {
            let parsed = try #require(try parse("\(method) / HTTP/1.1\r\nHost: a\r\n\r\n").first)
            #expect(parsed.request.method == method)
            #expect(parsed.request.body == [])
        }
        #expect(try parse("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n").first?.request.body == [])
    }

    @Test func keepAliveDefaults() throws {
        func keepAlive(_ head: String) throws -> Bool {
            try #require(try parse(head + "\r\n").first).keepAlive
        }
        #expect(try keepAlive("GET / HTTP/1.1\r\nHost: a\r\n"))
        #expect(try !keepAlive("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n"))
        #expect(try !keepAlive("GET / HTTP/1.1\r\nHost: a\r\nConnection: Upgrade, CLOSE\r\n"))
        #expect(try keepAlive("GET / HTTP/1.1\r\nHost: a\r\nConnection: keep-alive\r\n"))
        #expect(try !keepAlive("GET / HTTP/1.0\r\n"))
        #expect(try keepAlive("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n"))
        #expect(try !keepAlive("GET / HTTP/1.0\r\nConnection: keep-alive\r\nConnection: close\r\n"))
        #expect(try parse("GET / HTTP/1.0\r\n\r\n").first?.version == .http1_0)
    }

    @Test func absoluteFormTargetIsAccepted() throws {
        let a = try #require(try parse("GET http://example.com:8080/a/b?c=d HTTP/1.1\r\nHost: example.com:8080\r\n\r\n").first)
        #expect(a.request.path == "/a/b")
        #expect(a.request.query == "c=d")
        let b = try #require(try parse("GET HTTPS://example.com HTTP/1.1\r\nHost: example.com\r\n\r\n").first)
        #expect(b.request.path == "/")
        #expect(b.request.query == nil)
        let c = try #require(try parse("GET http://[::1]?q HTTP/1.1\r\nHost: [::1]\r\n\r\n").first)
        #expect(c.request.path == "/")
        #expect(c.request.query == "q")
    }

    @Test func emptyQueryIsKept() throws {
        let request = try #require(try parse("GET /a? HTTP/1.1\r\nHost: a\r\n\r\n").first).request
        #expect(request.path == "/a")
        #expect(request.query == "")
        #expect(request.target == "/a?")
    }

    @Test func leadingEmptyLinesAreIgnored() throws {
        let requests = try parse("\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n", chunk: 1)
        #expect(requests.map(\.request.path) == ["/"])
    }

    @Test func http10WithoutHostIsAccepted() throws {
        #expect(try parse("GET / HTTP/1.0\r\n\r\n").count == 1)
    }

    @Test func expectContinueIsOfferedOncePerRequest() throws {
        var parser = HTTP1RequestParser()
        parser.append(Array("POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n".utf8))
        #expect(try parser.nextRequest() == nil)
        let offered = parser.takeContinueRequest()
        let offeredAgain = parser.takeContinueRequest()
        #expect(offered)
        #expect(!offeredAgain)
        parser.append(Array("abc".utf8))
        #expect(try parser.nextRequest()?.request.body == Array("abc".utf8))
        let offeredAfter = parser.takeContinueRequest()
        #expect(!offeredAfter)
    }

    // MARK: - Malformed requests

    struct Malformed: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        let code: HTTP1ParseError.Code
        let status: Int
        var testDescription: String { name }

        init(_ name: String, _ text: String, _ code: HTTP1ParseError.Code, _ status: Int) {
            self.init(name, Array(text.utf8), code, status)
        }

        init(_ name: String, _ bytes: [UInt8], _ code: HTTP1ParseError.Code, _ status: Int) {
            self.name = name
            self.bytes = bytes
            self.code = code
            self.status = status
        }
    }

    static let malformed: [Malformed] = [
        // Request line
        .init("missing version", "GET /\r\nHost: a\r\n\r\n", .invalidRequestLine, 400),
        .init("leading space", " GET / HTTP/1.1\r\nHost: a\r\n\r\n", .invalidRequestLine, 400),
        .init("double space", "GET  / HTTP/1.1\r\nHost: a\r\n\r\n", .invalidRequestLine, 400),
        .init("space in target", "GET /a b HTTP/1.1\r\nHost: a\r\n\r\n", .invalidRequestLine, 400),
        .init("trailing space", "GET / HTTP/1.1 \r\nHost: a\r\n\r\n", .invalidRequestLine, 400),
        .init("empty version", "GET / \r\nHost: a\r\n\r\n", .invalidVersion, 400),
        .init("method not a token", "G(T / HTTP/1.1\r\nHost: a\r\n\r\n", .invalidMethod, 400),
        .init("TLS on plaintext port", [0x16, 0x03, 0x01, 0x02, 0x00, 0x01], .invalidMethod, 400),
        .init("method too long", String(repeating: "A", count: 33) + " / HTTP/1.1\r\nHost: a\r\n\r\n", .methodTooLong, 501),
        .init("asterisk-form", "OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n", .unsupportedTargetForm, 400),
        .init("authority-form", "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", .unsupportedTargetForm, 400),
        .init("relative target", "GET foo HTTP/1.1\r\nHost: a\r\n\r\n", .invalidRequestTarget, 400),
        .init("non-http scheme", "GET ftp://example.com/ HTTP/1.1\r\nHost: a\r\n\r\n", .invalidRequestTarget, 400),
        .init("userinfo in absolute-form", "GET http://u@example.com/ HTTP/1.1\r\nHost: a\r\n\r\n", .invalidRequestTarget, 400),
        .init("empty authority", "GET http:///x HTTP/1.1\r\nHost: a\r\n\r\n", .invalidRequestTarget, 400),
        .init("bad target character", "GET /a|b HTTP/1.1\r\nHost: a\r\n\r\n", .invalidRequestTarget, 400),
        .init("fragment in target", "GET /a#b HTTP/1.1\r\nHost: a\r\n\r\n", .invalidRequestTarget, 400),
        .init("raw UTF-8 in target", "GET /caf\u{e9} HTTP/1.1\r\nHost: a\r\n\r\n", .invalidRequestTarget, 400),
        .init("bad percent escape", "GET /a%zz HTTP/1.1\r\nHost: a\r\n\r\n", .invalidRequestTarget, 400),
        .init("truncated percent escape", "GET /a%2 HTTP/1.1\r\nHost: a\r\n\r\n", .invalidRequestTarget, 400),
        .init("lowercase version", "GET / http/1.1\r\nHost: a\r\n\r\n", .invalidVersion, 400),
        .init("short version", "GET / HTTP/1\r\nHost: a\r\n\r\n", .invalidVersion, 400),
        .init("long version", "GET / HTTP/1.10\r\nHost: a\r\n\r\n", .invalidVersion, 400),
        .init("HTTP/2.0", "GET / HTTP/2.0\r\nHost: a\r\n\r\n", .unsupportedVersion, 505),
        .init("HTTP/1.2", "GET / HTTP/1.2\r\nHost: a\r\n\r\n", .unsupportedVersion, 505),
        .init("HTTP/0.9", "GET / HTTP/0.9\r\n\r\n", .unsupportedVersion, 505),
        .init("h2c prior-knowledge preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", .unsupportedVersion, 505),
        // Line endings
        .init("bare LF after request line", "GET / HTTP/1.1\nHost: a\r\n\r\n", .invalidLineEnding, 400),
        .init("bare LF after header", "GET / HTTP/1.1\r\nHost: a\n\r\n", .invalidLineEnding, 400),
        .init("bare LF ending head", "GET / HTTP/1.1\r\nHost: a\r\n\n", .invalidLineEnding, 400),
        .init("bare LF alone", "\nGET / HTTP/1.1\r\nHost: a\r\n\r\n", .invalidLineEnding, 400),
        .init("bare CR in request line", "GET /\r/ HTTP/1.1\r\nHost: a\r\n\r\n", .invalidLineEnding, 400),
        .init("bare CR in header value", "GET / HTTP/1.1\r\nHost: a\r\nX: a\rb\r\n\r\n", .invalidLineEnding, 400),
        // Header fields
        .init("space before colon", "GET / HTTP/1.1\r\nHost : a\r\n\r\n", .whitespaceBeforeColon, 400),
        .init("tab before colon", "GET / HTTP/1.1\r\nHost: a\r\nX-A\t: b\r\n\r\n", .whitespaceBeforeColon, 400),
        .init("obs-fold", "GET / HTTP/1.1\r\nHost: a\r\nX-A: b\r\n  c\r\n\r\n", .obsoleteLineFolding, 400),
        .init("whitespace before first header", "GET / HTTP/1.1\r\n\tHost: a\r\n\r\n", .obsoleteLineFolding, 400),
        .init("control character in value", "GET / HTTP/1.1\r\nHost: a\r\nX-A: a\u{01}b\r\n\r\n", .invalidHeaderValue, 400),
        .init("NUL in value", "GET / HTTP/1.1\r\nHost: a\r\nX-A: a\u{0}b\r\n\r\n", .invalidHeaderValue, 400),
        .init("DEL in value", "GET / HTTP/1.1\r\nHost: a\r\nX-A: a\u{7F}\r\n\r\n", .invalidHeaderValue, 400),
        .init("empty header name", "GET / HTTP/1.1\r\nHost: a\r\n: b\r\n\r\n", .invalidHeaderName, 400),
        .init("header without colon", "GET / HTTP/1.1\r\nHost: a\r\nNoColon\r\n\r\n", .invalidHeaderName, 400),
        .init("bad header name character", "GET / HTTP/1.1\r\nHost: a\r\nX(A): b\r\n\r\n", .invalidHeaderName, 400),
        // Host
        .init("HTTP/1.1 without Host", "GET / HTTP/1.1\r\nAccept: */*\r\n\r\n", .missingHost, 400),
        .init("two Host fields", "GET / HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n", .duplicateHost, 400),
        .init("two Host fields in HTTP/1.0", "GET / HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n", .duplicateHost, 400),
        .init("Host with a path", "GET / HTTP/1.1\r\nHost: a/b\r\n\r\n", .invalidHost, 400),
        .init("Host with a space", "GET / HTTP/1.1\r\nHost: a b\r\n\r\n", .invalidHost, 400),
        // Content-Length
        .init("Content-Length with a letter", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 12a\r\n\r\n", .invalidContentLength, 400),
        .init("negative Content-Length", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", .invalidContentLength, 400),
        .init("signed Content-Length", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: +5\r\n\r\n", .invalidContentLength, 400),
        .init("Content-Length list", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5, 5\r\n\r\nhello", .invalidContentLength, 400),
        .init("empty Content-Length", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length:\r\n\r\n", .invalidContentLength, 400),
        .init("differing Content-Length", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!", .conflictingContentLength, 400),
        // Transfer-Encoding
        .init("Content-Length and Transfer-Encoding", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", .contentLengthWithTransferEncoding, 400),
        .init("Transfer-Encoding then Content-Length", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n", .contentLengthWithTransferEncoding, 400),
        .init("gzip coding", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n", .unsupportedTransferEncoding, 501),
        .init("gzip then chunked", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", .unsupportedTransferEncoding, 501),
        .init("chunked not last", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", .invalidTransferEncoding, 400),
        .init("chunked not last across fields", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n", .invalidTransferEncoding, 400),
        .init("chunked twice", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", .invalidTransferEncoding, 400),
        .init("coding with parameters", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked;x=1\r\n\r\n", .invalidTransferEncoding, 400),
        .init("empty Transfer-Encoding", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: ,\r\n\r\n", .invalidTransferEncoding, 400),
        .init("Transfer-Encoding in HTTP/1.0", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", .invalidTransferEncoding, 400),
        // Chunked framing
        .init("chunk size not hex", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", .invalidChunkSize, 400),
        .init("empty chunk size", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n\r\n", .invalidChunkSize, 400),
        .init("negative chunk size", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\n", .invalidChunkSize, 400),
        .init("chunk size over 16 hex digits", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFF\r\n", .chunkSizeOverflow, 400),
        .init("chunk size over Int.max", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFF\r\n", .chunkSizeOverflow, 400),
        .init("padded chunk size", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n00000000000000001\r\na\r\n0\r\n\r\n", .chunkSizeOverflow, 400),
        .init("whitespace after chunk size", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5 \r\nhello\r\n0\r\n\r\n", .invalidChunkExtension, 400),
        .init("empty chunk extension", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;\r\nhello\r\n0\r\n\r\n", .invalidChunkExtension, 400),
        .init("empty chunk extension value", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;a=\r\nhello\r\n0\r\n\r\n", .invalidChunkExtension, 400),
        .init("unterminated quoted extension", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;a=\"x\r\nhello\r\n0\r\n\r\n", .invalidChunkExtension, 400),
        .init("chunk data without CRLF", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloX\r\n0\r\n\r\n", .missingChunkTerminator, 400),
        .init("chunk data with LF only", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\n0\r\n\r\n", .missingChunkTerminator, 400),
        .init("chunk data with CR only", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\rX", .missingChunkTerminator, 400),
        .init("bare LF after chunk size", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\nhello\r\n0\r\n\r\n", .invalidLineEnding, 400),
        .init("chunk line too long", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;a=" + String(repeating: "b", count: 1100), .chunkLineTooLong, 400),
        .init("bad trailer", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-T : v\r\n\r\n", .whitespaceBeforeColon, 400),
        .init("trailer obs-fold", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-T: v\r\n w\r\n\r\n", .obsoleteLineFolding, 400),
        .init("bare LF in trailers", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-T: v\n\r\n", .invalidLineEnding, 400),
    ]

    @Test(arguments: malformed)
    func rejectsMalformed(_ testCase: Malformed) throws {
        let error = try #require(parseError(testCase.bytes))
        #expect(error.code == testCase.code, "\(error)")
        #expect(error.status == testCase.status)
        #expect(!error.message.isEmpty)
    }

    @Test func statusForEveryCode() {
        let expected: [HTTP1ParseError.Code: Int] = [
            .methodTooLong: 501, .unsupportedTransferEncoding: 501, .requestTargetTooLong: 414,
            .unsupportedVersion: 505, .headerSectionTooLarge: 431, .tooManyHeaders: 431,
            .trailerSectionTooLarge: 431, .bodyTooLarge: 413,
        ]
        for code in HTTP1ParseError.Code.allCases {
            #expect(code.status == expected[code] ?? 400, "\(code)")
        }
    }

    @Test func errorMessagesSayWhatWasWrong() throws {
        let contentLength = try #require(parseError("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 12a\r\n\r\n"))
        #expect(contentLength.message == "Content-Length \"12a\" is not a decimal number")
        let control = try #require(parseError("GET / HTTP/1.1\r\nHost: a\r\nX-A: a\u{01}b\r\n\r\n"))
        #expect(control.message == "value of header field \"X-A\" contains control character \"\\x01\"")
        let version = try #require(parseError("GET / HTTP/2.0\r\n\r\n"))
        #expect(version.message.contains("\"HTTP/2.0\""))
        #expect(version.description.hasPrefix("HTTP/1.1 505 unsupportedVersion: "))
    }

    @Test func errorPoisonsTheParser() throws {
        var parser = HTTP1RequestParser()
        parser.append(Array("GET / HTTP/1.1\r\nHost : a\r\n\r\n".utf8))
        let first = #expect(throws: HTTP1ParseError.self) { try parser.nextRequest() }
        parser.append(Array("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
        let second = #expect(throws: HTTP1ParseError.self) { try parser.nextRequest() }
        #expect(first != nil && first == second)
        #expect(parser.error == first)
        #expect(parser.bufferedByteCount == 0)
    }

    // MARK: - Limits

    /// A head of exactly `size` bytes: request line, Host, and one padding header.
    private func head(ofSize size: Int) -> [UInt8] {
        let prefix = "GET / HTTP/1.1\r\nHost: a\r\nX-Pad: "
        let suffix = "\r\n\r\n"
        let padding = size - prefix.utf8.count - suffix.utf8.count
        return Array((prefix + String(repeating: "p", count: padding) + suffix).utf8)
    }

    @Test func headerSectionAtTheLimitPasses() throws {
        let limits = HTTP1Limits(maxHeaderBytes: 200)
        let exact = head(ofSize: 200)
        #expect(exact.count == 200)
        #expect(try parse(exact, limits: limits).count == 1)
        #expect(try parse(exact, chunk: 1, limits: limits).count == 1)
        // With leading empty lines counted in.
        let withBlank = Array("\r\n".utf8) + head(ofSize: 198)
        #expect(try parse(withBlank, chunk: 1, limits: limits).count == 1)
    }

    @Test func headerSectionOneByteOverFailsWithoutWaiting() throws {
        let limits = HTTP1Limits(maxHeaderBytes: 200)
        let over = head(ofSize: 201)
        let error = try #require(parseError(over, limits: limits))
        #expect(error.code == .headerSectionTooLarge)
        #expect(error.status == 431)

        // The first 200 bytes cannot be a complete head, so they already fail: no more input is awaited.
        var parser = HTTP1RequestParser(limits: limits)
        parser.append(over[..<200])
        #expect(throws: HTTP1ParseError(.headerSectionTooLarge, "request line and header fields exceed 200 bytes")) {
            try parser.nextRequest()
        }
        // And 199 bytes still might be a valid head.
        var patient = HTTP1RequestParser(limits: limits)
        patient.append(over[..<199])
        #expect(try patient.nextRequest() == nil)
    }

    @Test func endlessHeaderLineFailsAtTheLimit() throws {
        var parser = HTTP1RequestParser()
        let prefix = Array("GET / HTTP/1.1\r\nHost: a\r\nX-Long: ".utf8)
        parser.append(prefix)
        #expect(try parser.nextRequest() == nil)
        var fed = 0
        var caught: HTTP1ParseError?
        while caught == nil && fed < 100_000 {
            parser.append(repeatElement(UInt8(ascii: "x"), count: 100))
            fed += 100
            do { _ = try parser.nextRequest() } catch { caught = error }
        }
        #expect(caught?.code == .headerSectionTooLarge)
        // Fails on the first append that brings the unfinished head to the limit, not later.
        #expect(prefix.count + fed >= 8192)
        #expect(prefix.count + fed - 100 < 8192)
    }

    @Test func tooManyHeaders() throws {
        let limits = HTTP1Limits(maxHeaderCount: 5)
        let five = "GET / HTTP/1.1\r\nHost: a\r\n" + (1...4).map { "X-\($0): v\r\n" }.joined()
        #expect(try parse(five + "\r\n", limits: limits).count == 1)
        let error = try #require(parseError(five + "X-5: v\r\n\r\n", limits: limits))
        #expect(error.code == .tooManyHeaders)
        #expect(error.status == 431)
        // Detected from the first byte of the sixth field line.
        var parser = HTTP1RequestParser(limits: limits)
        parser.append(Array((five + "X").utf8))
        #expect(throws: HTTP1ParseError.self) { try parser.nextRequest() }
    }

    @Test func requestTargetTooLongFailsBeforeTheLineEnds() throws {
        let limits = HTTP1Limits(maxRequestTargetBytes: 64)
        let ok = "GET /" + String(repeating: "a", count: 63) + " HTTP/1.1\r\nHost: a\r\n\r\n"
        #expect(try parse(ok, limits: limits).count == 1)
        var parser = HTTP1RequestParser(limits: limits)
        parser.append(Array(("GET /" + String(repeating: "a", count: 64)).utf8))
        let error = #expect(throws: HTTP1ParseError.self) { try parser.nextRequest() }
        #expect(error?.code == .requestTargetTooLong)
        #expect(error?.status == 414)
    }

    @Test func contentLengthOverTheLimitFailsImmediately() throws {
        let limits = HTTP1Limits(maxBodyBytes: 10)
        #expect(try parse("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\n0123456789", limits: limits).count == 1)
        var parser = HTTP1RequestParser(limits: limits)
        parser.append(Array("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\n".utf8))
        let error = #expect(throws: HTTP1ParseError.self) { try parser.nextRequest() }
        #expect(error?.code == .bodyTooLarge)
        #expect(error?.status == 413)
        let huge = parseError("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999999999\r\n\r\n")
        #expect(huge?.code == .bodyTooLarge)
    }

    @Test func chunkedBodyOverTheLimitFailsAtTheChunkSize() throws {
        let limits = HTTP1Limits(maxBodyBytes: 10)
        let head = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
        #expect(try parse(head + "5\r\n01234\r\n5\r\n56789\r\n0\r\n\r\n", limits: limits).first?.request.body.count == 10)
        var parser = HTTP1RequestParser(limits: limits)
        parser.append(Array((head + "5\r\n01234\r\n6\r\n").utf8))  // no data of the second chunk yet
        let error = #expect(throws: HTTP1ParseError.self) { try parser.nextRequest() }
        #expect(error?.code == .bodyTooLarge)
    }

    @Test func chunkSizeOverflowIsDetectedBeforeTheLineEnds() throws {
        var parser = HTTP1RequestParser()
        parser.append(Array("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFF".utf8))
        let error = #expect(throws: HTTP1ParseError.self) { try parser.nextRequest() }
        #expect(error?.code == .chunkSizeOverflow)
    }

    @Test func trailerSectionIsBoundedByTheHeaderLimit() throws {
        let limits = HTTP1Limits(maxHeaderBytes: 100)
        let head = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n"
        let fits = "X-T: " + String(repeating: "t", count: 100 - 9) + "\r\n\r\n"  // 100 bytes
        #expect(try parse(head + fits, limits: limits).count == 1)
        let over = "X-T: " + String(repeating: "t", count: 100 - 8) + "\r\n\r\n"
        #expect(parseError(head + over, limits: limits)?.code == .trailerSectionTooLarge)
        let many = HTTP1Limits(maxHeaderCount: 2)
        #expect(parseError(head + "A: 1\r\nB: 2\r\nC: 3\r\n\r\n", limits: many)?.code == .trailerSectionTooLarge)
    }

    @Test func methodTooLongFailsBeforeTheLineEnds() throws {
        var parser = HTTP1RequestParser()
        parser.append(Array(String(repeating: "A", count: 33).utf8))
        let error = #expect(throws: HTTP1ParseError.self) { try parser.nextRequest() }
        #expect(error?.code == .methodTooLong)
    }

    @Test func largeBodyAcrossManyAppends() throws {
        let body = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var parser = HTTP1RequestParser()
        parser.append(Array("PUT /blob HTTP/1.1\r\nHost: a\r\nContent-Length: \(body.count)\r\n\r\n".utf8))
        var offset = 0
        var result: HTTP1ParsedRequest?
        while offset < body.count {
            let end = min(offset + 16_384, body.count)
            body[offset..<end].withUnsafeBytes { parser.append($0) }
            offset = end
            if let request = try parser.nextRequest() { result = request }
            #expect(parser.bufferedByteCount == 0)
        }
        #expect(result?.request.body == body)
    }
}
