import RPCCore
/// A strict HTTP/1.1 server connection for the plain routes (health probes, store webhooks).
///
/// One request at a time: pipelined requests wait in the parser's buffer until the previous response is queued.
final class HTTP1ServerConnection: ConnectionProtocol {
    private unowned let socket: SocketConnection
    private let shared: ServerShared
    private var parser: HTTP1RequestParser
    private var output: [UInt8] = []
    private var requestInFlight = false
    private var closing = false
    private var shuttingDown = false
    /// The socket is gone; a response finishing later must not touch it.
    private var isGone = false

    init(socket: SocketConnection, shared: ServerShared) {
        self.socket = socket
        self.shared = shared
        self.parser = HTTP1RequestParser(
            limits: HTTP1Limits(
                maxHeaderBytes: shared.configuration.http1MaxHeaderBytes,
                maxBodyBytes: shared.configuration.http1MaxBodyBytes))
    }

    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard !closing else { return true }
        parser.append(bytes)
        processNextRequest()
        return true
    }

    func produceOutput(into buffer: inout [UInt8]) {
        guard !output.isEmpty else { return }
        buffer.append(contentsOf: output)
        output.removeAll(keepingCapacity: true)
    }

    var isFinished: Bool { closing && !requestInFlight && output.isEmpty }

    /// Pipelined requests wait in the parser; past one request's worth of bytes, or while answers pile up unread,
    /// the connection stops reading. (HTTP/2 needs no such rule: its flow control bounds what a peer can make us
    /// hold, and it must keep reading to see resets and window updates.)
    var acceptsInput: Bool {
        !closing && parser.bufferedByteCount < parser.limits.maxHeaderBytes + parser.limits.maxBodyBytes
            && socket.pendingOutputBytes < 256 * 1024
    }

    func connectionClosed() {
        isGone = true
    }

    func beginGracefulShutdown() {
        shuttingDown = true
        if !requestInFlight {
            closing = true
            socket.scheduleFlush()
        }
    }

    private func processNextRequest() {
        guard !requestInFlight, !closing else { return }
        let parsed: HTTP1ParsedRequest
        do {
            guard let next = try parser.nextRequest() else {
                if parser.takeContinueRequest() {
                    output.append(contentsOf: "HTTP/1.1 100 Continue\r\n\r\n".utf8)
                    socket.scheduleFlush()
                }
                return
            }
            parsed = next
        } catch {
            // The code, not the message: messages quote the offending line, which may hold a credential.
            shared.logger.info(
                "rejected HTTP/1.1 request",
                ["peer": socket.peer, "status": String(error.status), "reason": error.code.rawValue])
            output.append(contentsOf: HTTP1ResponseSerializer.serialize(error.response, keepAlive: false))
            closing = true
            socket.scheduleFlush()
            return
        }
        requestInFlight = true
        let router = shared.httpRouter
        let connection = LoopBound(self, loop: socket.loop)
        Task {
            let response = await router.respond(to: parsed.request)
            connection.execute { $0.complete(parsed, response) }
        }
    }

    private func complete(_ parsed: HTTP1ParsedRequest, _ response: HTTPResponse) {
        requestInFlight = false
        guard !isGone else { return }
        let keepAlive = parsed.keepAlive && !shuttingDown
        output.append(
            contentsOf: HTTP1ResponseSerializer.serialize(
                response, keepAlive: keepAlive, headRequest: parsed.request.method == "HEAD"))
        if !keepAlive { closing = true }
        socket.scheduleFlush()
        processNextRequest()
        socket.resumeReading()
    }
}
