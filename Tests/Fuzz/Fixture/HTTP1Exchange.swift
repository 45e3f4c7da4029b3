#if canImport(Glibc)
import Glibc
#endif
import TestSupport

/// One HTTP/1.1 request on a fresh loopback connection, read back as a client does: the response whole (by its
/// `content-length`, its chunks, or the connection's end; `1xx` answers skipped), or its head for a stream, which is
/// then dropped. The connection ends with a reset, so a long run leaves no `TIME_WAIT` behind.
public struct HTTP1Exchange {
    public enum Outcome: Equatable {
        /// A complete response with this status (the head alone for a stream).
        case answered(Int)
        /// The server closed the connection without a (complete) response.
        case closed
        /// Neither within the bound: the server holds the connection and says nothing.
        case silent
    }

    /// How the request's bytes end.
    public enum Ending {
        /// A complete request: its answer is awaited.
        case complete
        /// A complete request whose answer streams: its head is awaited, then the connection dropped.
        case stream
        /// The request may lack bytes (a length it does not send, raw bytes): the connection is half-closed after it,
        /// and the server answers or closes.
        case halfClose
    }

    /// Sends `request` to 127.0.0.1:`port` and reads the answer for at most `limit`. `head`: whether the request was a
    /// HEAD (its response has no body).
    public static func run(port: Int, request: [UInt8], ending: Ending, head: Bool, limit: Duration) -> Outcome {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { fatalError("socket: errno \(errno)") }
        defer {
            var reset = linger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, socklen_t(MemoryLayout<linger>.size))
            close(fd)
        }
        guard LoopbackAddress.withSocketAddress(port: port, { connect(fd, $0, $1) }) == 0 else { fatalError("cannot connect to the fuzz server: errno \(errno)") }
        let deadline = ContinuousClock.now + limit
        var sent = 0
        while sent < request.count {
            let count = request.withUnsafeBytes { send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            // The server may answer and close before taking everything (a refused head): read what it said.
            guard count > 0 else { break }
            sent += count
        }
        if ending == .halfClose { shutdown(fd, Int32(SHUT_WR)) }
        var reader = ResponseReader(head: head, headOnly: ending == .stream)
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            if let status = reader.status { return .answered(status) }
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { return .silent }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000 + 1)
            guard poll(&poller, 1, milliseconds) > 0 else { continue }
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { return reader.ended() }
            reader.take(buffer[0..<count])
        }
    }
}

/// Finds where a response ends in the bytes as they arrive; only as strict as a client needs to be.
private struct ResponseReader {
    let head: Bool
    let headOnly: Bool
    var bytes: [UInt8] = []
    /// Set once a final response is complete.
    var status: Int?
    private var untilClose: Int?

    init(head: Bool, headOnly: Bool) {
        self.head = head
        self.headOnly = headOnly
    }

    mutating func take(_ more: ArraySlice<UInt8>) {
        bytes += more
        while status == nil, let (code, headers, bodyStart) = parseHead() {
            if (100..<200).contains(code) && code != 101 {
                bytes.removeFirst(bodyStart)
                continue
            }
            if headOnly || head || code == 101 || code == 204 || code == 304 {
                status = code
            } else if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
                if chunkedBodyEnds(from: bodyStart) { status = code }
            } else if let length = headers["content-length"].flatMap({ Int($0) }) {
                if bytes.count - bodyStart >= length { status = code }
            } else {
                untilClose = code
            }
            return
        }
    }

    /// The connection ended: a response delimited by the close is complete, anything else was cut short.
    func ended() -> HTTP1Exchange.Outcome {
        untilClose.map { .answered($0) } ?? .closed
    }

    private func parseHead() -> (Int, [String: String], Int)? {
        guard bytes.count >= 4, let end = (0...(bytes.count - 4)).first(where: {
            bytes[$0] == 13 && bytes[$0 + 1] == 10 && bytes[$0 + 2] == 13 && bytes[$0 + 3] == 10
        }) else { return nil }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
        let statusLine = lines.first?.split(separator: " ") ?? []
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let code = Int(statusLine[1]),
            (100...599).contains(code)
        else {
            fatalError("the server answered a response head that is not HTTP/1.1: \(String(decoding: bytes[..<end], as: UTF8.self))")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmedSpaces()
        }
        return (code, headers, end + 4)
    }

    /// Whether the chunks from `start` reach the last chunk and the end of the trailers.
    private func chunkedBodyEnds(from start: Int) -> Bool {
        var position = start
        while true {
            guard let lineEnd = crlf(from: position) else { return false }
            let sizeText = String(decoding: bytes[position..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmedSpaces(), radix: 16), size >= 0 else {
                fatalError("the server sent a chunk size that is not hexadecimal: \(sizeText)")
            }
            position = lineEnd + 2
            if size == 0 {
                // Trailers, each a line, then an empty line.
                while let trailerEnd = crlf(from: position) {
                    if trailerEnd == position { return true }
                    position = trailerEnd + 2
                }
                return false
            }
            guard bytes.count >= position + size + 2 else { return false }
            position += size + 2
        }
    }

    private func crlf(from start: Int) -> Int? {
        guard bytes.count >= start + 2 else { return nil }
        return (start...(bytes.count - 2)).first { bytes[$0] == 13 && bytes[$0 + 1] == 10 }
    }
}

extension StringProtocol {
    fileprivate func trimmedSpaces() -> String {
        String(String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()))
    }
}
