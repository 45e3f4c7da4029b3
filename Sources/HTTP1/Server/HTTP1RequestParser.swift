import Encodings

/// A strict, incremental HTTP/1.1 request parser (RFC 9112).
///
/// Feed bytes as they arrive with `append`, then call `nextRequest()` until it returns nil (more bytes needed).
/// Several pipelined requests may sit in the buffer; each call returns the next one. Limits are checked
/// on every call against the bytes received so far, so a request that can no longer fit fails as soon as
/// that is certain, never after buffering past the limit. Call `nextRequest()` after every `append`.
///
/// After a parse error the parser is poisoned: every later call throws the same error, and appended
/// bytes are dropped. Answer `error.response` with `Connection: close` and close the connection.
///
/// What is rejected (status): request line not `method SP target SP HTTP/x.y` (400); method not a token (400)
/// or too long (501); target not origin-form or http(s) absolute-form (400), too long (414); version other than
/// 1.0/1.1 (505); bare LF or bare CR (400); whitespace before a field colon, obs-fold, control characters in
/// values (400); HTTP/1.1 without exactly one Host (400); bad or conflicting Content-Length (400);
/// Content-Length with Transfer-Encoding (400); codings other than a single final `chunked` (501/400);
/// malformed chunks (400); header or trailer section over the limits (431); body over the limit (413).
public struct HTTP1RequestParser: Sendable {
    public let limits: HTTP1Limits

    private enum State: Sendable {
        case requestLine
        case headerLines
        case fixedBody(remaining: Int)
        case chunkSizeLine
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailerLines
    }

    private enum Progress {
        case needMore
        case advanced
        case complete
    }

    private enum LineScan {
        /// Offset (from `readIndex`) of the LF ending the line.
        case line(lineFeed: Int)
        case incomplete
        /// The line cannot end within the allowed length.
        case overflow
    }

    /// The request being read.
    private struct Pending: Sendable {
        /// Bytes of the head so far (leading empty lines, request line, field lines), or of the trailer section.
        var sectionBytes = 0
        /// Header field lines, or trailer field lines.
        var fieldCount = 0
        var method = ""
        var path = ""
        var query: String?
        var version = HTTP1Version.http1_1
        var headers = HTTPHeaders()
        var body: [UInt8] = []
        var keepAlive = true
    }

    /// How far the (possibly incomplete) request line has been validated, so checks run once per byte.
    private struct RequestLineScan: Sendable {
        enum Phase { case method, target, version }
        var checked = 0
        var phase = Phase.method
        var targetStart = 0
        var versionStart = 0
    }

    private var buffer: [UInt8] = []
    private var readIndex = 0
    private var state = State.requestLine
    private var pending = Pending()
    /// Bytes of the current line (from `readIndex`) already searched for LF.
    private var scanOffset = 0
    private var requestLineScan = RequestLineScan()
    private var continuePending = false
    public private(set) var error: HTTP1ParseError?

    public init(limits: HTTP1Limits = HTTP1Limits()) {
        self.limits = limits
    }

    // MARK: - Public interface

    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard error == nil else { return }
        buffer.append(contentsOf: bytes)
    }

    public mutating func append(_ bytes: some Collection<UInt8>) {
        guard error == nil else { return }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete request, or nil when more bytes are needed.
    public mutating func nextRequest() throws(HTTP1ParseError) -> HTTP1ParsedRequest? {
        if let error { throw error }
        do throws(HTTP1ParseError) {
            let request = try parse()
            compact()
            return request
        } catch {
            self.error = error
            buffer = []
            readIndex = 0
            continuePending = false
            throw error
        }
    }

    /// True once per request when its head carried `Expect: 100-continue` (HTTP/1.1) and its body is still
    /// awaited: the connection should write `HTTP/1.1 100 Continue\r\n\r\n` (check after `nextRequest()` returns nil).
    public mutating func takeContinueRequest() -> Bool {
        defer { continuePending = false }
        return continuePending
    }

    /// Bytes received but not yet consumed by a returned request.
    public var bufferedByteCount: Int { buffer.count - readIndex }

    /// Whether bytes of an unfinished request have been received (for deciding how to treat EOF or an idle timeout).
    public var hasPartialRequest: Bool {
        if case .requestLine = state { return buffer.count > readIndex }
        return true
    }

    /// Whether the head of a request (its request line or fields, leading empty lines included) has begun and not
    /// yet ended: what the server's request-head deadline times.
    public var isReceivingHead: Bool {
        switch state {
        case .requestLine: buffer.count > readIndex
        case .headerLines: true
        default: false
        }
    }

    // MARK: - State machine

    private mutating func parse() throws(HTTP1ParseError) -> HTTP1ParsedRequest? {
        while true {
            let progress: Progress
            switch state {
            case .requestLine:
                progress = try parseRequestLine()
            case .headerLines:
                progress = try parseHeaderLine()
            case .fixedBody(let remaining):
                let count = min(buffer.count - readIndex, remaining)
                guard count > 0 else { return nil }
                pending.body.append(contentsOf: buffer[readIndex..<readIndex + count])
                readIndex += count
                if count == remaining {
                    progress = .complete
                } else {
                    state = .fixedBody(remaining: remaining - count)
                    progress = .needMore
                }
            case .chunkSizeLine:
                progress = try parseChunkSizeLine()
            case .chunkData(let remaining):
                let count = min(buffer.count - readIndex, remaining)
                guard count > 0 else { return nil }
                pending.body.append(contentsOf: buffer[readIndex..<readIndex + count])
                readIndex += count
                state = count == remaining ? .chunkDataEnd : .chunkData(remaining: remaining - count)
                progress = count == remaining ? .advanced : .needMore
            case .chunkDataEnd:
                progress = try parseChunkDataEnd()
            case .trailerLines:
                progress = try parseTrailerLine()
            }
            switch progress {
            case .needMore: return nil
            case .advanced: continue
            case .complete: return complete()
            }
        }
    }

    private mutating func complete() -> HTTP1ParsedRequest {
        let request = HTTPRequest(
            method: pending.method,
            path: pending.path,
            query: pending.query,
            headers: pending.headers,
            body: pending.body
        )
        let parsed = HTTP1ParsedRequest(request: request, version: pending.version, keepAlive: pending.keepAlive)
        pending = Pending()
        state = .requestLine
        requestLineScan = RequestLineScan()
        scanOffset = 0
        continuePending = false
        return parsed
    }

    private mutating func compact() {
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 64 * 1024)
            readIndex = 0
        } else if readIndex >= 4096 && readIndex * 2 >= buffer.count {
            buffer.removeSubrange(0..<readIndex)
            readIndex = 0
        }
    }

    // MARK: - Lines

    /// Looks for the LF ending the line at `readIndex`, searching only bytes not searched before and at most
    /// `maxLength` bytes (the whole line including CRLF) from the line start.
    private mutating func scanLine(maxLength: Int) -> LineScan {
        let available = buffer.count - readIndex
        let end = min(available, max(maxLength, 0))
        let start = readIndex
        let found: Int? = buffer.withUnsafeBufferPointer { bytes in
            var offset = scanOffset
            while offset < end {
                if bytes[start + offset] == HTTP1Grammar.lf { return offset }
                offset += 1
            }
            return nil
        }
        if let found {
            scanOffset = 0
            return .line(lineFeed: found)
        }
        scanOffset = end
        return available >= maxLength ? .overflow : .incomplete
    }

    /// The line ending at `lineFeed` must end in CRLF.
    private func checkLineEnding(lineFeed: Int, what: String) throws(HTTP1ParseError) {
        guard lineFeed > 0, buffer[readIndex + lineFeed - 1] == HTTP1Grammar.cr else {
            throw HTTP1ParseError(.invalidLineEnding, "\(what) ends with a bare LF; lines must end with CRLF")
        }
    }

    // MARK: - Request line

    private mutating func parseRequestLine() throws(HTTP1ParseError) -> Progress {
        switch scanLine(maxLength: limits.maxHeaderBytes - pending.sectionBytes) {
        case .incomplete:
            try checkRequestLine(upTo: scanOffset, final: false)
            return .needMore
        case .overflow:
            try checkRequestLine(upTo: scanOffset, final: false)
            throw HTTP1ParseError(
                .headerSectionTooLarge,
                "request line and header fields exceed \(limits.maxHeaderBytes) bytes"
            )
        case .line(let lineFeed):
            // The content first, then the ending: the earliest problem in the stream is the one reported, however
            // the bytes were split into reads (the content may have been checked as it arrived).
            let endsWithCR = lineFeed > 0 && buffer[readIndex + lineFeed - 1] == HTTP1Grammar.cr
            try checkRequestLine(upTo: endsWithCR ? lineFeed - 1 : lineFeed, final: true)
            try checkLineEnding(lineFeed: lineFeed, what: "request line")
            let contentLength = lineFeed - 1
            if contentLength == 0 {
                // RFC 9112 §2.2: ignore empty lines before the request line (they count toward the head limit).
                readIndex += 2
                pending.sectionBytes += 2
                requestLineScan = RequestLineScan()
                return .advanced
            }
            try finishRequestLine(contentLength: contentLength)
            readIndex += lineFeed + 1
            pending.sectionBytes += lineFeed + 1
            requestLineScan = RequestLineScan()
            state = .headerLines
            return .advanced
        }
    }

    /// Validates request-line bytes `[checked, end)` (offsets from `readIndex`) as they arrive: method characters
    /// and length, target length, version length. `final` means `end` is the end of the line content.
    private mutating func checkRequestLine(upTo end: Int, final: Bool) throws(HTTP1ParseError) {
        var scan = requestLineScan
        defer { requestLineScan = scan }
        var offset = scan.checked
        while offset < end {
            let byte = buffer[readIndex + offset]
            if byte == HTTP1Grammar.cr {
                if !final && offset == end - 1 { break }  // maybe the CR of the final CRLF
                throw HTTP1ParseError(.invalidLineEnding, "request line contains a CR not followed by LF")
            }
            switch scan.phase {
            case .method:
                if byte == HTTP1Grammar.space {
                    guard offset > 0 else {
                        throw HTTP1ParseError(.invalidRequestLine, "request line starts with a space")
                    }
                    scan.phase = .target
                    scan.targetStart = offset + 1
                } else if !HTTP1Grammar.isTokenChar(byte) {
                    throw HTTP1ParseError(
                        .invalidMethod,
                        "method contains \(HTTP1Grammar.quote(byte)), which is not a token character"
                            + (offset == 0 && byte == 0x16 ? " (a TLS handshake sent to a plaintext port?)" : "")
                    )
                } else if offset + 1 > limits.maxMethodBytes {
                    throw HTTP1ParseError(.methodTooLong, "method is longer than \(limits.maxMethodBytes) bytes")
                }
            case .target:
                if byte == HTTP1Grammar.space {
                    guard offset > scan.targetStart else {
                        throw HTTP1ParseError(.invalidRequestLine, "empty request target (two spaces after the method)")
                    }
                    scan.phase = .version
                    scan.versionStart = offset + 1
                } else if offset + 1 - scan.targetStart > limits.maxRequestTargetBytes {
                    throw HTTP1ParseError(
                        .requestTargetTooLong,
                        "request target is longer than \(limits.maxRequestTargetBytes) bytes"
                    )
                }
            case .version:
                if byte == HTTP1Grammar.space {
                    throw HTTP1ParseError(.invalidRequestLine, "unexpected space after the HTTP version")
                } else if offset + 1 - scan.versionStart > 8 {
                    throw HTTP1ParseError(
                        .invalidVersion,
                        "HTTP version \(HTTP1Grammar.quote(buffer[readIndex + scan.versionStart..<readIndex + offset + 1])) is not HTTP/<digit>.<digit>"
                    )
                }
            }
            offset += 1
        }
        scan.checked = offset
    }

    private mutating func finishRequestLine(contentLength: Int) throws(HTTP1ParseError) {
        let scan = requestLineScan
        let base = readIndex
        guard scan.phase == .version else {
            throw HTTP1ParseError(
                .invalidRequestLine,
                "request line \(HTTP1Grammar.quote(buffer[base..<base + contentLength])) is not 'method SP request-target SP HTTP-version'"
            )
        }
        let versionBytes = buffer[base + scan.versionStart..<base + contentLength]
        pending.version = try parseVersion(versionBytes)
        let methodBytes = buffer[base..<base + scan.targetStart - 1]
        pending.method = String(decoding: methodBytes, as: UTF8.self)
        try parseTarget(base + scan.targetStart..<base + scan.versionStart - 1)
    }

    private func parseVersion(_ bytes: ArraySlice<UInt8>) throws(HTTP1ParseError) -> HTTP1Version {
        let prefix: [UInt8] = Array("HTTP/".utf8)
        guard bytes.count == 8, bytes.starts(with: prefix) else {
            throw HTTP1ParseError(
                .invalidVersion,
                bytes.isEmpty
                    ? "request line has no HTTP version"
                    : "HTTP version \(HTTP1Grammar.quote(bytes)) is not HTTP/<digit>.<digit>"
            )
        }
        let major = bytes[bytes.startIndex + 5]
        let dot = bytes[bytes.startIndex + 6]
        let minor = bytes[bytes.startIndex + 7]
        guard major &- 0x30 < 10, dot == UInt8(ascii: "."), minor &- 0x30 < 10 else {
            throw HTTP1ParseError(.invalidVersion, "HTTP version \(HTTP1Grammar.quote(bytes)) is not HTTP/<digit>.<digit>")
        }
        switch (major, minor) {
        case (UInt8(ascii: "1"), UInt8(ascii: "1")): return .http1_1
        case (UInt8(ascii: "1"), UInt8(ascii: "0")): return .http1_0
        default:
            throw HTTP1ParseError(
                .unsupportedVersion,
                "HTTP version \(HTTP1Grammar.quote(bytes)) is not supported on this connection; use HTTP/1.1 or HTTP/1.0"
            )
        }
    }

    /// origin-form (`/path?query`) or absolute-form (`http://authority/path?query`); asterisk- and authority-form are refused.
    private mutating func parseTarget(_ range: Range<Int>) throws(HTTP1ParseError) {
        let target = buffer[range]
        let first = target[target.startIndex]
        if first == UInt8(ascii: "/") {
            try splitPathAndQuery(range)
            return
        }
        if target.count == 1 && first == UInt8(ascii: "*") {
            throw HTTP1ParseError(.unsupportedTargetForm, "asterisk-form request target '*' is not supported")
        }
        if let schemeEnd = absoluteFormSchemeEnd(range) {
            let scheme = HTTPHeaders.lowercased(String(decoding: buffer[range.lowerBound..<schemeEnd], as: UTF8.self))
            guard scheme == "http" || scheme == "https" else {
                throw HTTP1ParseError(
                    .invalidRequestTarget,
                    "absolute-form request target has scheme \(HTTP1Grammar.quote(buffer[range.lowerBound..<schemeEnd])); only http and https are served"
                )
            }
            let authorityStart = schemeEnd + 3
            var index = authorityStart
            while index < range.upperBound, buffer[index] != UInt8(ascii: "/"), buffer[index] != UInt8(ascii: "?") {
                guard HTTP1Grammar.isAuthorityChar(buffer[index]) else {
                    throw HTTP1ParseError(
                        .invalidRequestTarget,
                        "authority of the request target contains \(HTTP1Grammar.quote(buffer[index]))"
                    )
                }
                index += 1
            }
            guard index > authorityStart else {
                throw HTTP1ParseError(.invalidRequestTarget, "absolute-form request target has an empty authority")
            }
            if index == range.upperBound {
                pending.path = "/"
                pending.query = nil
            } else if buffer[index] == UInt8(ascii: "?") {
                try splitPathAndQuery(index..<range.upperBound)
                pending.path = "/"
            } else {
                try splitPathAndQuery(index..<range.upperBound)
            }
            return
        }
        if pending.method == "CONNECT" || target.contains(UInt8(ascii: ":")) {
            throw HTTP1ParseError(
                .unsupportedTargetForm,
                "authority-form request target \(HTTP1Grammar.quote(target)) is not supported"
            )
        }
        throw HTTP1ParseError(
            .invalidRequestTarget,
            "request target \(HTTP1Grammar.quote(target)) must start with '/' or be an absolute http(s) URI"
        )
    }

    /// The index of `:` in `scheme "://"` at the start of `range`, if the target looks like an absolute URI.
    private func absoluteFormSchemeEnd(_ range: Range<Int>) -> Int? {
        var index = range.lowerBound
        guard (buffer[index] | 0x20) &- 0x61 < 26 else { return nil }
        index += 1
        while index < range.upperBound {
            let byte = buffer[index]
            if byte == UInt8(ascii: ":") { break }
            guard (byte | 0x20) &- 0x61 < 26 || byte &- 0x30 < 10 || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            else { return nil }
            index += 1
        }
        guard range.upperBound - index >= 3, buffer[index] == UInt8(ascii: ":"),
            buffer[index + 1] == UInt8(ascii: "/"), buffer[index + 2] == UInt8(ascii: "/")
        else { return nil }
        return index
    }

    /// Validates `path [ "?" query ]` (RFC 3986 characters, `%HH` escapes) and stores both parts, still encoded.
    private mutating func splitPathAndQuery(_ range: Range<Int>) throws(HTTP1ParseError) {
        var queryMark: Int?
        var index = range.lowerBound
        while index < range.upperBound {
            let byte = buffer[index]
            guard HTTP1Grammar.isTargetChar(byte) else {
                throw HTTP1ParseError(
                    .invalidRequestTarget,
                    "request target contains \(HTTP1Grammar.quote(byte)), which must be percent-encoded"
                )
            }
            if byte == UInt8(ascii: "%") {
                guard index + 2 < range.upperBound, HTTP1Grammar.isHexDigit(buffer[index + 1]),
                    HTTP1Grammar.isHexDigit(buffer[index + 2])
                else {
                    throw HTTP1ParseError(
                        .invalidRequestTarget,
                        "request target has a '%' not followed by two hex digits"
                    )
                }
                index += 3
                continue
            }
            if byte == UInt8(ascii: "?") && queryMark == nil { queryMark = index }
            index += 1
        }
        if let queryMark {
            pending.path = String(decoding: buffer[range.lowerBound..<queryMark], as: UTF8.self)
            pending.query = String(decoding: buffer[queryMark + 1..<range.upperBound], as: UTF8.self)
        } else {
            pending.path = String(decoding: buffer[range], as: UTF8.self)
            pending.query = nil
        }
    }

    // MARK: - Header and trailer sections

    private mutating func parseHeaderLine() throws(HTTP1ParseError) -> Progress {
        if pending.fieldCount >= limits.maxHeaderCount, readIndex < buffer.count, buffer[readIndex] != HTTP1Grammar.cr {
            throw HTTP1ParseError(.tooManyHeaders, "more than \(limits.maxHeaderCount) header fields")
        }
        switch scanLine(maxLength: limits.maxHeaderBytes - pending.sectionBytes) {
        case .incomplete:
            return .needMore
        case .overflow:
            throw HTTP1ParseError(
                .headerSectionTooLarge,
                "request line and header fields exceed \(limits.maxHeaderBytes) bytes"
            )
        case .line(let lineFeed):
            try checkLineEnding(lineFeed: lineFeed, what: "header line")
            let content = readIndex..<readIndex + lineFeed - 1
            if content.isEmpty {
                readIndex += 2
                pending.sectionBytes += 2
                return try finishHead()
            }
            pending.fieldCount += 1
            if pending.fieldCount > limits.maxHeaderCount {
                throw HTTP1ParseError(.tooManyHeaders, "more than \(limits.maxHeaderCount) header fields")
            }
            let (name, value) = try parseFieldLine(content, section: "header")
            pending.headers.addLowercased(name: name, value: value)
            readIndex += lineFeed + 1
            pending.sectionBytes += lineFeed + 1
            return .advanced
        }
    }

    private mutating func parseTrailerLine() throws(HTTP1ParseError) -> Progress {
        if pending.fieldCount >= limits.maxHeaderCount, readIndex < buffer.count, buffer[readIndex] != HTTP1Grammar.cr {
            throw HTTP1ParseError(.trailerSectionTooLarge, "more than \(limits.maxHeaderCount) trailer fields")
        }
        switch scanLine(maxLength: limits.maxHeaderBytes - pending.sectionBytes) {
        case .incomplete:
            return .needMore
        case .overflow:
            throw HTTP1ParseError(.trailerSectionTooLarge, "trailer section exceeds \(limits.maxHeaderBytes) bytes")
        case .line(let lineFeed):
            try checkLineEnding(lineFeed: lineFeed, what: "trailer line")
            let content = readIndex..<readIndex + lineFeed - 1
            readIndex += lineFeed + 1
            pending.sectionBytes += lineFeed + 1
            if content.isEmpty { return .complete }
            pending.fieldCount += 1
            if pending.fieldCount > limits.maxHeaderCount {
                throw HTTP1ParseError(.trailerSectionTooLarge, "more than \(limits.maxHeaderCount) trailer fields")
            }
            _ = try parseFieldLine(content, section: "trailer")  // validated, then discarded
            return .advanced
        }
    }

    /// `field-name ":" OWS field-value OWS`; returns the lowercased name and the trimmed value.
    private func parseFieldLine(_ content: Range<Int>, section: String) throws(HTTP1ParseError) -> (String, String) {
        let first = buffer[content.lowerBound]
        if first == HTTP1Grammar.space || first == HTTP1Grammar.tab {
            throw HTTP1ParseError(
                .obsoleteLineFolding,
                "\(section) line \(HTTP1Grammar.quote(buffer[content])) starts with whitespace (obsolete line folding is not allowed)"
            )
        }
        var colon = content.lowerBound
        while colon < content.upperBound && HTTP1Grammar.isTokenChar(buffer[colon]) { colon += 1 }
        let nameBytes = buffer[content.lowerBound..<colon]
        guard colon < content.upperBound else {
            throw HTTP1ParseError(.invalidHeaderName, "\(section) line \(HTTP1Grammar.quote(nameBytes)) has no colon")
        }
        switch buffer[colon] {
        case UInt8(ascii: ":"):
            guard colon > content.lowerBound else {
                throw HTTP1ParseError(.invalidHeaderName, "\(section) line \(HTTP1Grammar.quote(buffer[content])) has an empty field name")
            }
        case HTTP1Grammar.space, HTTP1Grammar.tab:
            throw HTTP1ParseError(
                .whitespaceBeforeColon,
                "whitespace between \(section) field name \(HTTP1Grammar.quote(nameBytes)) and the colon"
            )
        case HTTP1Grammar.cr:
            throw HTTP1ParseError(.invalidLineEnding, "\(section) line contains a CR not followed by LF")
        case let byte:
            throw HTTP1ParseError(
                .invalidHeaderName,
                "\(section) field name \(HTTP1Grammar.quote(buffer[content.lowerBound...colon])) contains \(HTTP1Grammar.quote(byte)), which is not a token character"
            )
        }
        var valueStart = colon + 1
        var valueEnd = content.upperBound
        for index in valueStart..<valueEnd {
            let byte = buffer[index]
            if !HTTP1Grammar.isFieldValueChar(byte) {
                if byte == HTTP1Grammar.cr {
                    throw HTTP1ParseError(.invalidLineEnding, "\(section) line contains a CR not followed by LF")
                }
                throw HTTP1ParseError(
                    .invalidHeaderValue,
                    "value of \(section) field \(HTTP1Grammar.quote(nameBytes)) contains control character \(HTTP1Grammar.quote(byte))"
                )
            }
        }
        while valueStart < valueEnd, buffer[valueStart] == HTTP1Grammar.space || buffer[valueStart] == HTTP1Grammar.tab {
            valueStart += 1
        }
        while valueEnd > valueStart, buffer[valueEnd - 1] == HTTP1Grammar.space || buffer[valueEnd - 1] == HTTP1Grammar.tab {
            valueEnd -= 1
        }
        let name = String(unsafeUninitializedCapacity: nameBytes.count) { output in
            var index = 0
            for byte in nameBytes {
                output[index] = byte &- 0x41 < 26 ? byte | 0x20 : byte
                index += 1
            }
            return index
        }
        return (name, String(decoding: buffer[valueStart..<valueEnd], as: UTF8.self))
    }

    /// Checks Host and the framing headers, decides keep-alive and how the body is delimited.
    private mutating func finishHead() throws(HTTP1ParseError) -> Progress {
        var hostCount = 0
        var contentLength: Int?
        var transferEncodings: [String] = []
        var close = false
        var keepAlive = false
        var expectsContinue = false
        for field in pending.headers.fields {
            switch field.name {
            case "host":
                hostCount += 1
                guard hostCount == 1 else {
                    throw HTTP1ParseError(.duplicateHost, "more than one Host header field")
                }
                guard field.value.utf8.allSatisfy(HTTP1Grammar.isAuthorityChar) else {
                    throw HTTP1ParseError(.invalidHost, "Host \(HTTP1Grammar.quote(field.value.utf8)) is not a valid authority")
                }
            case "content-length":
                let length = try parseContentLength(field.value)
                if let contentLength, contentLength != length {
                    throw HTTP1ParseError(.conflictingContentLength, "Content-Length fields have different values")
                }
                contentLength = length
            case "transfer-encoding":
                transferEncodings.append(field.value)
            case "connection":
                for option in field.value.utf8.split(separator: UInt8(ascii: ",")) {
                    let option = HTTPHeaders.lowercased(String(decoding: trimmingOWS(option), as: UTF8.self))
                    if option == "close" { close = true } else if option == "keep-alive" { keepAlive = true }
                }
            case "expect":
                expectsContinue = HTTPHeaders.lowercased(field.value) == "100-continue"
            default:
                break
            }
        }
        if pending.version == .http1_1 && hostCount == 0 {
            throw HTTP1ParseError(.missingHost, "HTTP/1.1 request has no Host header field")
        }
        pending.keepAlive = pending.version == .http1_1 ? !close : keepAlive && !close
        pending.sectionBytes = 0
        pending.fieldCount = 0

        if !transferEncodings.isEmpty {
            if contentLength != nil {
                throw HTTP1ParseError(
                    .contentLengthWithTransferEncoding,
                    "request has both Transfer-Encoding and Content-Length"
                )
            }
            if pending.version == .http1_0 {
                throw HTTP1ParseError(.invalidTransferEncoding, "Transfer-Encoding is not allowed in an HTTP/1.0 request")
            }
            try checkTransferCodings(transferEncodings)
            state = .chunkSizeLine
            continuePending = expectsContinue
            return .advanced
        }
        if let contentLength, contentLength > 0 {
            guard contentLength <= limits.maxBodyBytes else {
                throw HTTP1ParseError(
                    .bodyTooLarge,
                    "Content-Length \(contentLength == .max ? "(too large for an integer)" : String(contentLength)) exceeds the limit of \(limits.maxBodyBytes) bytes"
                )
            }
            pending.body.reserveCapacity(contentLength)
            state = .fixedBody(remaining: contentLength)
            continuePending = expectsContinue && pending.version == .http1_1
            return .advanced
        }
        return .complete
    }

    /// Digits only (no sign, no list); a value beyond `Int` saturates to `Int.max`, which any body limit rejects.
    private func parseContentLength(_ value: String) throws(HTTP1ParseError) -> Int {
        guard !value.isEmpty, value.utf8.allSatisfy({ $0 &- 0x30 < 10 }) else {
            throw HTTP1ParseError(
                .invalidContentLength,
                "Content-Length \(HTTP1Grammar.quote(value.utf8)) is not a decimal number"
            )
        }
        // Too large to fit is too large to accept: the body limit refuses it.
        return HTTP1Grammar.decimalValue(value.utf8) ?? .max
    }

    /// Only a single `chunked` is accepted: it must be last (RFC 9112 §6.3), may not repeat, and other codings are not implemented.
    private func checkTransferCodings(_ values: [String]) throws(HTTP1ParseError) {
        var codings: [String] = []
        for value in values {
            for element in value.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
                let coding = trimmingOWS(element)
                if coding.isEmpty { continue }
                guard coding.allSatisfy(HTTP1Grammar.isTokenChar) else {
                    throw HTTP1ParseError(
                        .invalidTransferEncoding,
                        "Transfer-Encoding element \(HTTP1Grammar.quote(coding)) is not a plain coding name"
                    )
                }
                codings.append(HTTPHeaders.lowercased(String(decoding: coding, as: UTF8.self)))
            }
        }
        guard let last = codings.last else {
            throw HTTP1ParseError(.invalidTransferEncoding, "Transfer-Encoding is empty")
        }
        let chunkedCount = codings.count { $0 == "chunked" }
        guard last == "chunked" else {
            if chunkedCount > 0 {
                throw HTTP1ParseError(.invalidTransferEncoding, "chunked must be the final transfer coding")
            }
            throw HTTP1ParseError(
                .unsupportedTransferEncoding,
                "transfer coding \(HTTP1Grammar.quote(last.utf8)) is not supported; only chunked is"
            )
        }
        if chunkedCount > 1 {
            throw HTTP1ParseError(.invalidTransferEncoding, "chunked is applied more than once")
        }
        if codings.count > 1 {
            throw HTTP1ParseError(
                .unsupportedTransferEncoding,
                "transfer codings \(HTTP1Grammar.quote(codings.dropLast().joined(separator: ", ").utf8)) are not supported; only chunked is"
            )
        }
    }

    private func trimmingOWS(_ bytes: Substring.UTF8View) -> Substring.UTF8View {
        var result = bytes
        while let first = result.first, first == HTTP1Grammar.space || first == HTTP1Grammar.tab { result.removeFirst() }
        while let last = result.last, last == HTTP1Grammar.space || last == HTTP1Grammar.tab { result.removeLast() }
        return result
    }

    // MARK: - Chunked body

    private mutating func parseChunkSizeLine() throws(HTTP1ParseError) -> Progress {
        switch scanLine(maxLength: limits.maxChunkLineBytes + 2) {
        case .incomplete:
            try checkChunkSizeDigits(upTo: scanOffset)
            return .needMore
        case .overflow:
            try checkChunkSizeDigits(upTo: scanOffset)
            throw HTTP1ParseError(
                .chunkLineTooLong,
                "chunk-size line (size and extensions) exceeds \(limits.maxChunkLineBytes) bytes"
            )
        case .line(let lineFeed):
            try checkLineEnding(lineFeed: lineFeed, what: "chunk-size line")
            let content = readIndex..<readIndex + lineFeed - 1
            try checkChunkSizeDigits(upTo: content.count)
            var index = content.lowerBound
            var size: UInt64 = 0
            while index < content.upperBound, let digit = Hex.value(buffer[index]) {
                size = size << 4 | UInt64(digit)
                index += 1
            }
            guard index > content.lowerBound else {
                throw HTTP1ParseError(
                    .invalidChunkSize,
                    "chunk size \(HTTP1Grammar.quote(buffer[content])) is not a hexadecimal number"
                )
            }
            guard size <= UInt64(Int.max) else {
                throw HTTP1ParseError(.chunkSizeOverflow, "chunk size \(HTTP1Grammar.quote(buffer[content.lowerBound..<index])) overflows")
            }
            try checkChunkExtensions(index..<content.upperBound)
            readIndex += lineFeed + 1
            if size == 0 {
                state = .trailerLines
                return .advanced
            }
            guard Int(size) <= limits.maxBodyBytes - pending.body.count else {
                throw HTTP1ParseError(
                    .bodyTooLarge,
                    "chunked body exceeds the limit of \(limits.maxBodyBytes) bytes"
                )
            }
            state = .chunkData(remaining: Int(size))
            return .advanced
        }
    }

    /// The first bytes of a chunk-size line must be 1 to 16 hex digits; checked before the line is complete.
    private func checkChunkSizeDigits(upTo end: Int) throws(HTTP1ParseError) {
        var count = 0
        while count < end, HTTP1Grammar.isHexDigit(buffer[readIndex + count]) {
            count += 1
            if count > 16 {
                throw HTTP1ParseError(
                    .chunkSizeOverflow,
                    "chunk size \(HTTP1Grammar.quote(buffer[readIndex..<readIndex + count]))... has more than 16 hex digits"
                )
            }
        }
        if count == 0 && end > 0 {
            throw HTTP1ParseError(
                .invalidChunkSize,
                "chunk size \(HTTP1Grammar.quote(buffer[readIndex..<readIndex + end])) is not a hexadecimal number"
            )
        }
    }

    /// `*( BWS ";" BWS ext-name [ BWS "=" BWS ( token / quoted-string ) ] )`; validated and ignored.
    private func checkChunkExtensions(_ range: Range<Int>) throws(HTTP1ParseError) {
        func invalid(_ why: String) -> HTTP1ParseError {
            HTTP1ParseError(.invalidChunkExtension, "chunk extension \(HTTP1Grammar.quote(buffer[range])): \(why)")
        }
        func skipWhitespace(_ index: inout Int) {
            while index < range.upperBound, buffer[index] == HTTP1Grammar.space || buffer[index] == HTTP1Grammar.tab {
                index += 1
            }
        }
        func skipToken(_ index: inout Int) -> Bool {
            let start = index
            while index < range.upperBound, HTTP1Grammar.isTokenChar(buffer[index]) { index += 1 }
            return index > start
        }
        var index = range.lowerBound
        while index < range.upperBound {
            skipWhitespace(&index)
            guard index < range.upperBound, buffer[index] == UInt8(ascii: ";") else {
                if index < range.upperBound, buffer[index] == HTTP1Grammar.cr {
                    throw HTTP1ParseError(.invalidLineEnding, "chunk-size line contains a CR not followed by LF")
                }
                throw invalid("expected ';'")
            }
            index += 1
            skipWhitespace(&index)
            guard skipToken(&index) else { throw invalid("empty or invalid extension name") }
            var afterName = index
            skipWhitespace(&afterName)
            guard afterName < range.upperBound, buffer[afterName] == UInt8(ascii: "=") else { continue }
            index = afterName + 1
            skipWhitespace(&index)
            if index < range.upperBound, buffer[index] == UInt8(ascii: "\"") {
                index += 1
                var closed = false
                while index < range.upperBound {
                    let byte = buffer[index]
                    index += 1
                    if byte == UInt8(ascii: "\"") {
                        closed = true
                        break
                    }
                    if byte == UInt8(ascii: "\\") {
                        guard index < range.upperBound, HTTP1Grammar.isFieldValueChar(buffer[index]) else {
                            throw invalid("bad escape in quoted string")
                        }
                        index += 1
                    } else if !HTTP1Grammar.isFieldValueChar(byte) {
                        throw invalid("control character in quoted string")
                    }
                }
                guard closed else { throw invalid("unterminated quoted string") }
            } else {
                guard skipToken(&index) else { throw invalid("empty or invalid extension value") }
            }
        }
    }

    private mutating func parseChunkDataEnd() throws(HTTP1ParseError) -> Progress {
        let available = buffer.count - readIndex
        guard available > 0 else { return .needMore }
        guard buffer[readIndex] == HTTP1Grammar.cr, available < 2 || buffer[readIndex + 1] == HTTP1Grammar.lf else {
            throw HTTP1ParseError(
                .missingChunkTerminator,
                "chunk data is not followed by CRLF (found \(HTTP1Grammar.quote(buffer[readIndex..<readIndex + min(available, 2)])))"
            )
        }
        guard available >= 2 else { return .needMore }
        readIndex += 2
        state = .chunkSizeLine
        return .advanced
    }
}
