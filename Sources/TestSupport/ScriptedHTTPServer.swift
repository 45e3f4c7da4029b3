import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A loopback HTTP/1.1 server for client tests whose every answer a test scripts, including the broken ones a real
/// server would never give on purpose: a connection closed mid-response, a stall, bytes that are not HTTP.
///
/// Blocking sockets on one thread per connection: a test server's simplicity matters more than its speed.
public final class ScriptedHTTPServer: Sendable {
    /// One request as received.
    public struct Request: Sendable {
        public var method: String
        public var target: String
        /// Lowercased names.
        public var headers: [String: String]
        public var body: [UInt8]
        /// 0 for the first connection accepted, 1 for the next...
        public var connection: Int
    }

    /// What to do with a request.
    public enum Reply: Sendable {
        /// Send these bytes and keep the connection for the next request.
        case bytes([UInt8])
        /// Send these bytes and close.
        case bytesThenClose([UInt8])
        /// Close without answering.
        case close
        /// Answer nothing for this long, then close.
        case stall(Duration)

        /// A complete response with `Content-Length`.
        public static func status(_ code: Int, _ body: String = "", headers: [(String, String)] = []) -> Reply {
            let head = "HTTP/1.1 \(code) Scripted\r\n" + headers.map { "\($0.0): \($0.1)\r\n" }.joined()
                + "Content-Length: \(body.utf8.count)\r\n\r\n"
            return .bytes(Array((head + body).utf8))
        }
    }

    public let port: Int
    private let listener: Int32
    private let state = Mutex<(requests: [Request], connections: Int, closed: Bool, portHolder: Int32)>(([], 0, false, -1))
    private let respond: @Sendable (Request) -> Reply
    private let recordsRequests: Bool

    /// Listens on 127.0.0.1 at a free port; `respond` answers each request, in order of arrival. Without
    /// `recordsRequests` (a long-lived fake, such as a fuzz target's), ``requests`` stays empty.
    public init(recordsRequests: Bool = true, respond: @escaping @Sendable (Request) -> Reply) throws {
        self.respond = respond
        self.recordsRequests = recordsRequests
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        listener = fd
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = LoopbackAddress.withSocketAddress(port: 0) { bind(fd, $0, $1) }
        guard bound == 0, listen(fd, 64) == 0 else { throw POSIXError(.EADDRINUSE) }
        port = LoopbackAddress.port(of: fd)
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    deinit {
        stop()
        state.withLock { state in
            if state.portHolder >= 0 { close(state.portHolder) }
        }
    }

    /// Every request received so far, in order.
    public var requests: [Request] { state.withLock { $0.requests } }
    /// Connections accepted so far.
    public var connectionCount: Int { state.withLock { $0.connections } }

    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Stops listening. Until the server is released its port stays bound to a socket that does not listen, so a
    /// connection to it is refused: tests of an unreachable endpoint use a stopped server's URL, and another test's
    /// server, started meanwhile, must not be given that port.
    public func stop() {
        let wasClosed = state.withLock { state in
            defer { state.closed = true }
            return state.closed
        }
        guard !wasClosed else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        let holder = Self.bindWithoutListening(port: port)
        state.withLock { $0.portHolder = holder }
    }

    /// A socket bound to 127.0.0.1:`port` that never listens, or -1 if the port was taken in between.
    private static func bindWithoutListening(port: Int) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return -1 }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard LoopbackAddress.withSocketAddress(port: port, { bind(fd, $0, $1) }) == 0 else {
            close(fd)
            return -1
        }
        return fd
    }

    private func acceptLoop() {
        while true {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { return }
            let index = state.withLock { state in
                defer { state.connections += 1 }
                return state.connections
            }
            let thread = Thread { [self] in serve(fd, connection: index) }
            thread.start()
        }
    }

    private func serve(_ fd: Int32, connection: Int) {
        defer { close(fd) }
        var buffer: [UInt8] = []
        while let request = readRequest(fd, buffer: &buffer, connection: connection) {
            if recordsRequests { state.withLock { $0.requests.append(request) } }
            switch respond(request) {
            case .bytes(let bytes):
                guard sendAll(fd, bytes) else { return }
            case .bytesThenClose(let bytes):
                _ = sendAll(fd, bytes)
                return
            case .close:
                return
            case .stall(let duration):
                Thread.sleep(forTimeInterval: Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
                return
            }
        }
    }

    private func readRequest(_ fd: Int32, buffer: inout [UInt8], connection: Int) -> Request? {
        let separator: [UInt8] = [13, 10, 13, 10]
        func headEnd() -> Int? {
            guard buffer.count >= 4 else { return nil }
            return (0...(buffer.count - 4)).first { Array(buffer[$0..<($0 + 4)]) == separator }
        }
        while headEnd() == nil {
            guard receive(fd, into: &buffer) else { return nil }
        }
        let end = headEnd()!
        let lines = String(decoding: buffer[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = lines[0].split(separator: " ")
        guard requestLine.count == 3 else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        buffer.removeFirst(end + 4)
        while buffer.count < length {
            guard receive(fd, into: &buffer) else { return nil }
        }
        let body = Array(buffer.prefix(length))
        buffer.removeFirst(length)
        return Request(
            method: String(requestLine[0]), target: String(requestLine[1]), headers: headers, body: body,
            connection: connection)
    }

    private func receive(_ fd: Int32, into buffer: inout [UInt8]) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let count = recv(fd, &chunk, chunk.count, 0)
        guard count > 0 else { return false }
        buffer += chunk[0..<count]
        return true
    }

    private func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }
}
