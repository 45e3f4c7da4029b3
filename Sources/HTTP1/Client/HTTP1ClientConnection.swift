import Glibc
import PosixIO

/// The client side of one HTTP/1.1 connection: one exchange at a time, kept open between them when the server
/// allows. Loop-confined.
final class HTTP1ClientConnection: ConnectionProtocol {
    typealias Completion = (Result<HTTPClientResponse, HTTPClientError>) -> Void

    private struct Exchange {
        var request: [UInt8]
        var parser: HTTP1ResponseParser
        var completion: Completion
    }

    let socket: SocketConnection
    let origin: HTTPClientOrigin
    private let limits: HTTP1ResponseParser.Limits
    private var exchange: Exchange?
    private var closing = false
    private var receivedAny = false
    /// When the last exchange ended, for the pool's idle limit.
    private(set) var idleSince = ContinuousClock.now

    init(socket: SocketConnection, origin: HTTPClientOrigin, limits: HTTP1ResponseParser.Limits) {
        self.socket = socket
        self.origin = origin
        self.limits = limits
    }

    /// Free for a new exchange.
    var isIdle: Bool { exchange == nil && !closing && !socket.isClosed }

    /// Sends `request` (already serialized); `completion` runs once, on the loop.
    func start(_ request: [UInt8], isHead: Bool, completion: @escaping Completion) {
        precondition(exchange == nil, "an HTTP/1.1 connection carries one exchange at a time")
        guard !closing, !socket.isClosed else {
            // It failed while being set up (a connect refused at once).
            completion(.failure(closedError))
            return
        }
        exchange = Exchange(
            request: request, parser: HTTP1ResponseParser(limits: limits, requestWasHead: isHead), completion: completion)
        socket.scheduleFlush()
    }

    /// Gives up on the exchange in flight (its timeout, its caller's cancellation): the connection cannot be reused.
    func abandon(with error: HTTPClientError) {
        finish(.failure(error), keepOpen: false)
        socket.close()
    }

    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        receivedAny = true
        guard exchange != nil else {
            // Bytes nobody asked for: the connection's framing can no longer be trusted.
            closing = true
            return false
        }
        do throws(HTTPClientError) {
            // Parsed in place: a copy of the parser would copy the body received so far on every read.
            let progress = try exchange!.parser.parse(bytes)
            guard case .complete(let consumed) = progress, let parser = exchange?.parser else { return true }
            // Bytes beyond the response are as unasked-for as bytes on an idle connection.
            let keepOpen = parser.keepsConnectionOpen && consumed == bytes.count
            finish(.success(parser.response), keepOpen: keepOpen)
            return keepOpen
        } catch {
            finish(.failure(error), keepOpen: false)
            return false
        }
    }

    func produceOutput(into buffer: inout [UInt8]) {
        guard let request = exchange?.request, !request.isEmpty else { return }
        buffer += request
        exchange?.request = []
    }

    var isFinished: Bool { closing }

    func connectionClosed() {
        closing = true
        guard exchange != nil else { return }
        if exchange!.parser.connectionClosed(), let parser = exchange?.parser {
            finish(.success(parser.response), keepOpen: false)
        } else {
            finish(.failure(closedError), keepOpen: false)
        }
    }

    func beginGracefulShutdown() {
        if exchange == nil { closing = true }
    }

    private var closedError: HTTPClientError {
        let address = origin.address
        switch socket.failure {
        case .system(let code)? where !receivedAny && Self.connectErrnos.contains(code):
            // A non-blocking connect reports its failure as the socket's first error.
            return HTTPClientError(connecting: ClientConnectionFailure(connectErrno: code, address: address))
        case .system(let code)?:
            return HTTPClientError(.connectionClosed, "the connection to \(address) broke: \(SocketFailure.text(ofErrno: code))")
        case .tlsHandshake(let reason)?:
            return HTTPClientError(
                .tlsFailed, "TLS handshake with \(address) failed: \(reason ?? "the server closed the connection")")
        case .tls(let reason)?:
            return HTTPClientError(.connectionClosed, "TLS error on the connection to \(address): \(reason)")
        case nil:
            return HTTPClientError(.connectionClosed, "\(address) closed the connection before the response was complete")
        }
    }

    private static let connectErrnos: Set<Int32> = [
        ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, ETIMEDOUT, EHOSTDOWN, ENETDOWN, EADDRNOTAVAIL,
    ]

    private func finish(_ result: Result<HTTPClientResponse, HTTPClientError>, keepOpen: Bool) {
        guard let current = exchange else { return }
        exchange = nil
        if !keepOpen { closing = true }
        idleSince = .now
        current.completion(result)
    }
}
