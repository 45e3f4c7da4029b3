import Encodings

/// Reads one HTTP/1.1 response from the bytes a connection receives, incrementally (RFC 9112): the status line,
/// header fields, and a body framed by `Transfer-Encoding: chunked`, `Content-Length` or the connection's close.
/// Interim (1xx) responses are skipped. Pure: the connection feeds it bytes and acts on what it returns.
package struct HTTP1ResponseParser {
    package enum Progress: Equatable {
        case needMore
        /// The response is complete; `consumed` bytes of the last input belonged to it.
        case complete(consumed: Int)
    }

    package struct Limits {
        /// Status line and header fields together, and each chunk-size line and the trailers.
        package var maxHeadBytes = 64 * 1024
        package var maxBodyBytes = 16 * 1024 * 1024

        package init(maxHeadBytes: Int = 64 * 1024, maxBodyBytes: Int = 16 * 1024 * 1024) {
            self.maxHeadBytes = maxHeadBytes
            self.maxBodyBytes = maxBodyBytes
        }
    }

    private enum State {
        case statusLine
        case headerLines
        case fixedBody(remaining: Int)
        case chunkSizeLine
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailerLines
        case untilClose
        case done
    }

    private let limits: Limits
    /// A HEAD request's response has no body, whatever its headers say.
    private let requestWasHead: Bool
    private var state = State.statusLine
    private var line: [UInt8] = []
    private var headBytes = 0
    private var status = 0
    private var minorVersion = 1
    private var headers = HTTPHeaders()
    private var body: [UInt8] = []

    package init(limits: Limits = Limits(), requestWasHead: Bool = false) {
        self.limits = limits
        self.requestWasHead = requestWasHead
    }

    /// The response, once ``parse(_:)`` or ``connectionClosed()`` reported it complete.
    package var response: HTTPClientResponse { HTTPClientResponse(status: status, headers: headers, body: body) }

    /// Whether the connection may carry another request after this response.
    package var keepsConnectionOpen: Bool {
        if case .untilClose = bodyFraming { return false }
        // Both framings at once: a sign of a confused or hostile server; the connection is not trusted again
        // (RFC 9112 §6.3).
        if headers.contains("transfer-encoding"), headers.contains("content-length") { return false }
        let tokens = headers.values(for: "connection").flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: " \t").lowercased() }
        return minorVersion >= 1 ? !tokens.contains("close") : tokens.contains("keep-alive")
    }

    /// Feeds bytes; throws when they cannot be an HTTP/1.1 response or exceed the limits.
    package mutating func parse(_ bytes: UnsafeRawBufferPointer) throws(HTTPClientError) -> Progress {
        var index = 0
        while index < bytes.count {
            switch state {
            case .statusLine, .headerLines, .chunkSizeLine, .trailerLines, .chunkDataEnd:
                guard let newline = bytes[index...].firstIndex(of: HTTP1Grammar.lf) else {
                    try appendToLine(bytes[index...])
                    return .needMore
                }
                try appendToLine(bytes[index..<newline])
                index = newline + 1
                if line.last == HTTP1Grammar.cr { line.removeLast() }
                try finishLine()
                line.removeAll(keepingCapacity: true)
            case .fixedBody(let remaining):
                let count = min(remaining, bytes.count - index)
                body.append(contentsOf: bytes[index..<(index + count)])
                index += count
                state = remaining == count ? .done : .fixedBody(remaining: remaining - count)
            case .chunkData(let remaining):
                let count = min(remaining, bytes.count - index)
                body.append(contentsOf: bytes[index..<(index + count)])
                index += count
                state = remaining == count ? .chunkDataEnd : .chunkData(remaining: remaining - count)
            case .untilClose:
                try checkBodySize(adding: bytes.count - index)
                body.append(contentsOf: bytes[index...])
                index = bytes.count
            case .done:
                return .complete(consumed: index)
            }
            if case .done = state { return .complete(consumed: index) }
        }
        if case .done = state { return .complete(consumed: index) }
        return .needMore
    }

    /// The peer closed the connection: true when that completes the response (a body read until close).
    package mutating func connectionClosed() -> Bool {
        switch state {
        case .untilClose:
            state = .done
            return true
        case .done: return true
        default: return false
        }
    }

    // MARK: Lines

    private mutating func appendToLine(_ bytes: UnsafeRawBufferPointer.SubSequence) throws(HTTPClientError) {
        headBytes += bytes.count
        guard headBytes <= limits.maxHeadBytes, line.count + bytes.count <= limits.maxHeadBytes else {
            throw HTTPClientError(.responseTooLarge, "the response head is larger than \(limits.maxHeadBytes) bytes")
        }
        line.append(contentsOf: bytes)
    }

    private mutating func finishLine() throws(HTTPClientError) {
        headBytes += 1
        switch state {
        case .statusLine: try readStatusLine()
        case .headerLines:
            if line.isEmpty { try headersEnded() } else { try readField(into: &headers) }
        case .chunkSizeLine: try readChunkSize()
        case .chunkDataEnd:
            guard line.isEmpty else { throw malformed("chunk data is not followed by CRLF") }
            state = .chunkSizeLine
        case .trailerLines:
            // Trailer fields are read for their syntax and dropped: nothing here uses them.
            if line.isEmpty {
                state = .done
            } else {
                var trailers = HTTPHeaders()
                try readField(into: &trailers)
            }
        default: break
        }
    }

    /// `HTTP/1.x SP 3DIGIT SP reason-phrase`; the reason may be empty and the space before it missing.
    private mutating func readStatusLine() throws(HTTPClientError) {
        let prefix = Array("HTTP/1.".utf8)
        guard line.count >= 12, Array(line.prefix(7)) == prefix, line[7] == UInt8(ascii: "0") || line[7] == UInt8(ascii: "1"),
            line[8] == HTTP1Grammar.space, line[9...11].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            line.count == 12 || line[12] == HTTP1Grammar.space
        else {
            throw malformed("the status line \(HTTP1Grammar.quote(line)) is not `HTTP/1.1 <3 digits> <reason>`")
        }
        minorVersion = Int(line[7] - 0x30)
        status = line[9...11].reduce(0) { $0 * 10 + Int($1 - 0x30) }
        guard status >= 100 else { throw malformed("the status code \(status) is below 100") }
        state = .headerLines
    }

    private func readField(into fields: inout HTTPHeaders) throws(HTTPClientError) {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > 0,
            line[..<colon].allSatisfy(HTTP1Grammar.isTokenChar)
        else {
            throw malformed("the header line \(HTTP1Grammar.quote(line)) is not `name: value`")
        }
        var value = line[(colon + 1)...]
        while let first = value.first, first == HTTP1Grammar.space || first == HTTP1Grammar.tab { value = value.dropFirst() }
        while let last = value.last, last == HTTP1Grammar.space || last == HTTP1Grammar.tab { value = value.dropLast() }
        guard value.allSatisfy(HTTP1Grammar.isFieldValueChar) else {
            throw malformed("the value of header \(HTTP1Grammar.quote(line[..<colon])) holds a control character")
        }
        fields.add(name: String(decoding: line[..<colon], as: UTF8.self), value: String(decoding: value, as: UTF8.self))
    }

    private enum BodyFraming {
        case none
        case chunked
        case length(Int)
        case untilClose
    }

    private var bodyFraming: BodyFraming {
        if requestWasHead || status < 200 || status == 204 || status == 304 { return .none }
        if let encoding = headers.values(for: "transfer-encoding").last {
            let last = encoding.split(separator: ",").last?.trimmingCharacters(in: " \t").lowercased()
            return last == "chunked" ? .chunked : .untilClose
        }
        if let length = headers["content-length"].flatMap(Int.init) { return .length(length) }
        return .untilClose
    }

    private mutating func headersEnded() throws(HTTPClientError) {
        if status >= 100, status < 200, status != 101 {
            // An interim response: the final one follows.
            headers = HTTPHeaders()
            status = 0
            state = .statusLine
            return
        }
        guard status != 101 else { throw malformed("the server switched protocols (101), which was not asked for") }
        if !headers.contains("transfer-encoding") {
            // Several Content-Length fields (or a list) must agree (RFC 9112 §6.3).
            let lengths = Set(headers.values(for: "content-length").flatMap { $0.split(separator: ",") }
                .map { $0.trimmingCharacters(in: " \t") })
            guard lengths.count <= 1, lengths.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } && $0.count <= 18 })
            else {
                throw malformed("the Content-Length is not one decimal number")
            }
            if let length = lengths.first { headers["content-length"] = length }
        }
        switch bodyFraming {
        case .none: state = .done
        case .chunked: state = .chunkSizeLine
        case .untilClose: state = .untilClose
        case .length(let length):
            try checkBodySize(adding: length)
            state = length == 0 ? .done : .fixedBody(remaining: length)
        }
    }

    /// `chunk-size [; extensions]`, hex; the last chunk (size 0) is followed by trailers.
    private mutating func readChunkSize() throws(HTTPClientError) {
        let digits = line.prefix { HTTP1Grammar.isHexDigit($0) }
        let rest = line.dropFirst(digits.count)
        guard !digits.isEmpty, digits.count <= 15,
            rest.isEmpty || rest.first == UInt8(ascii: ";") || rest.first == HTTP1Grammar.space || rest.first == HTTP1Grammar.tab
        else {
            throw malformed("the chunk size line \(HTTP1Grammar.quote(line)) is not hexadecimal")
        }
        let size = digits.reduce(0) { $0 * 16 + Int(Hex.value($1)!) }
        if size == 0 {
            state = .trailerLines
            return
        }
        try checkBodySize(adding: size)
        state = .chunkData(remaining: size)
    }

    private func checkBodySize(adding count: Int) throws(HTTPClientError) {
        guard body.count + count <= limits.maxBodyBytes else {
            throw HTTPClientError(.responseTooLarge, "the response body is larger than \(limits.maxBodyBytes) bytes")
        }
    }

    private func malformed(_ message: String) -> HTTPClientError { HTTPClientError(.malformedResponse, message) }
}

extension StringProtocol {
    /// Trimmed of the given ASCII characters at both ends.
    fileprivate func trimmingCharacters(in set: String) -> String {
        let characters = Set(set)
        var slice = Substring(self)
        while let first = slice.first, characters.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, characters.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}
