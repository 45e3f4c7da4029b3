import HTTP1
import PosixIO
import RPCCore

/// A strict HTTP/1.1 server connection: the plain routes (health probes, store webhooks), CORS preflights, gRPC-Web
/// calls and Connect streams (``HTTP1FramedCall``), and Connect unary calls (``ConnectUnaryCall``).
///
/// One request at a time: pipelined requests wait in the parser's buffer until the previous response is queued
/// (a body-framed call's: until its status frame is).
final class HTTP1ServerConnection: ConnectionProtocol {
    unowned let socket: SocketConnection
    let shared: ServerShared
    private var parser: HTTP1RequestParser
    var output: [UInt8] = []
    var requestInFlight = false
    var closing = false
    private(set) var shuttingDown = false
    /// The socket is gone; a response finishing later must not touch it.
    private(set) var isGone = false
    /// The gRPC-Web call or Connect stream in flight, if the current request is one.
    var framedCall: HTTP1FramedCall?
    /// The Connect unary call whose handler runs, if the current request is one.
    var connectUnaryCall: ConnectUnaryCall?
    /// Numbers this connection's body-framed calls, so a late wake or timer of an earlier call finds nothing.
    var framedCallCount: Int32 = 0
    var shutdownGraceTimer: TimerHeap.ID?
    /// When the request head being received must be complete: the first from the connection's accept, each later
    /// one from the read that began it; nil while no head is arriving.
    private var headDue: ContinuousClock.Instant?
    /// The timer of ``headDue``. Left to fire after its head completes (it then finds nothing due, or re-arms for a
    /// later head): most heads arrive in one read and never arm it.
    private var headTimer: TimerHeap.ID?

    init(socket: SocketConnection, shared: ServerShared) {
        self.socket = socket
        self.shared = shared
        self.headDue = socket.acceptedAt + shared.configuration.requestHeadTimeout
        self.parser = HTTP1RequestParser(
            limits: HTTP1Limits(
                maxHeaderBytes: shared.configuration.http1MaxHeaderBytes,
                maxBodyBytes: shared.configuration.http1MaxBodyBytes))
    }

    var loop: EventLoop { socket.loop }

    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard !closing else { return true }
        parser.append(bytes)
        processNextRequest()
        timeHead()
        return true
    }

    /// Starts or ends the current head's deadline, and makes sure a timer watches it.
    private func timeHead() {
        guard !requestInFlight, !closing, parser.isReceivingHead else {
            headDue = nil
            return
        }
        let due = headDue ?? .now + shared.configuration.requestHeadTimeout
        headDue = due
        if headTimer == nil {
            // Held strongly until it fires or the connection closes, like the socket's timers.
            headTimer = loop.scheduleTimer(at: due) { self.headTimerFired() }
        }
    }

    private func headTimerFired() {
        headTimer = nil
        guard !isGone, let due = headDue else { return }
        guard due <= .now else {
            headTimer = loop.scheduleTimer(at: due) { self.headTimerFired() }
            return
        }
        headDue = nil
        shared.admission.countRequestHeadTimeout(.http1)
        let seconds = shared.configuration.requestHeadTimeout.components.seconds
        output.append(
            contentsOf: HTTP1ResponseSerializer.serialize(
                .text(408, "The request head did not arrive within \(seconds) s.\n"), keepAlive: false))
        closing = true
        socket.scheduleFlush()
    }

    func produceOutput(into buffer: inout [UInt8]) {
        if !output.isEmpty {
            buffer.append(contentsOf: output)
            output.removeAll(keepingCapacity: true)
        }
        // A body-framed call's response is drawn from its queue as the socket takes it: back-pressure for the handler.
        if let framedCall, framedCall.isStreaming { pumpFramedResponse(framedCall, into: &buffer) }
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
        loop.cancelTimer(shutdownGraceTimer)
        loop.cancelTimer(headTimer)
        connectUnaryCall?.end(with: .clientCancelled)
        connectUnaryCall = nil
        if let framedCall {
            perform(framedCall.call.state.streamClosed(), on: framedCall)
            framedCall.call.countEnd(.cancelled)  // unless its status went out
            // The call's response queue wakes this connection (a strong reference): dropping the call breaks the
            // cycle, or a stream the client left would keep the connection, the call and its task forever.
            self.framedCall = nil
        }
    }

    func beginGracefulShutdown() {
        shuttingDown = true
        if let framedCall { perform(framedCall.call.state.shutdownBegan(), on: framedCall) }
        if framedCall != nil || connectUnaryCall != nil {
            shutdownGraceTimer = loop.scheduleTimer(after: shared.configuration.shutdownGracePeriod) {
                self.shutdownGraceEnded()
            }
        }
        if !requestInFlight {
            closing = true
            socket.scheduleFlush()
        }
    }

    func processNextRequest() {
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
        if let response = transportResponse(to: parsed) {
            complete(parsed, response)
            return
        }
        var head = HeaderBlock(http1: parsed.request)
        if head.framing != nil {
            startFramedCall(parsed, head: head)
            return
        }
        if isConnectUnaryCall(parsed.request) {
            startConnectUnaryCall(parsed, head: &head)
            return
        }
        let router = shared.httpRouter
        let connection = LoopBound(self, loop: socket.loop)
        var request = parsed.request
        request.peer = socket.peer
        Task {
            let response = await router.respond(to: request)
            connection.execute { $0.complete(parsed, response) }
        }
    }

    /// What the transport answers itself: a CORS preflight, a call in a content type it does not take
    /// (``UnsupportedCallContentType``), or a gRPC-Web call or Connect stream that is not a POST or comes over HTTP/1.0 (whose
    /// responses cannot be chunked).
    private func transportResponse(to parsed: HTTP1ParsedRequest) -> HTTPResponse? {
        let request = parsed.request
        guard !shared.httpRouter.matches(path: request.path) else { return nil }
        if let origin = request.headers["origin"],
            GRPCWebCORS.isPreflight(
                method: request.method, origin: origin, requestMethod: request.headers["access-control-request-method"])
        {
            return GRPCWebCORS.preflightResponse(origin: origin, policy: shared.configuration.grpcWebCORS)
        }
        let type = request.headers["content-type"]
        guard let type, let framing = BodyFraming(contentType: type.utf8) else {
            guard !isConnectUnaryCall(request),
                UnsupportedCallContentType.looksLikeCall(path: request.path, contentType: type, router: shared.router)
            else { return nil }
            return .text(415, UnsupportedCallContentType.message(contentType: type) + "\n")
        }
        if request.method != "POST" {
            var response = HTTPResponse.text(405, "gRPC-Web and Connect streams require POST.\n")
            response.headers.add(name: "allow", value: "POST")
            return response
        }
        if parsed.version == .http1_0 { return .text(505, "gRPC-Web and Connect streams need HTTP/1.1 or HTTP/2.\n") }
        return shared.unsupportedConnectStream(framing: framing, path: request.path).map { .text(415, $0 + "\n") }
    }

    private func isConnectUnaryCall(_ request: HTTPRequest) -> Bool {
        ConnectUnaryCall.isUnaryCall(
            method: request.method, target: request, contentType: request.headers["content-type"], router: shared.router)
    }

    /// A Connect unary call: its body is here whole; its response is made whole, now or when its handler ends.
    private func startConnectUnaryCall(_ parsed: HTTP1ParsedRequest, head: inout HeaderBlock) {
        let call = ConnectUnaryCall(
            head: &head, request: parsed.request, shared: shared,
            environment: ConnectUnaryCall.Environment(
                acceptsNewCalls: !shuttingDown, peer: socket.peer, connectionID: socket.id, memory: ConnectionMemory(),
                tls: socket.tls != nil, shard: loop.index))
        let connection = LoopBound(self, loop: socket.loop)
        let response = call.respond(body: parsed.request.body) { response in
            connection.execute { $0.completeConnectUnaryCall(parsed, response) }
        }
        if let response {
            complete(parsed, response)
        } else {
            // The handler runs: the connection is busy (not idle) until it answers.
            connectUnaryCall = call
            socket.isStreamingResponse = true
        }
    }

    private func completeConnectUnaryCall(_ parsed: HTTP1ParsedRequest, _ response: HTTPResponse) {
        guard !isGone, connectUnaryCall != nil else { return }
        connectUnaryCall = nil
        socket.isStreamingResponse = false
        loop.cancelTimer(shutdownGraceTimer)
        shutdownGraceTimer = nil
        complete(parsed, response)
    }

    /// Sends a complete response and moves on to the next request (or closes).
    func complete(_ parsed: HTTP1ParsedRequest, _ response: HTTPResponse) {
        output.append(
            contentsOf: HTTP1ResponseSerializer.serialize(
                response, keepAlive: parsed.keepAlive && !shuttingDown, headRequest: parsed.request.method == "HEAD"))
        requestEnded(keepAlive: parsed.keepAlive)
    }

    /// The response to the current request is queued whole: the next one may start, or the connection closes.
    func requestEnded(keepAlive: Bool) {
        requestInFlight = false
        guard !isGone else { return }
        if !keepAlive || shuttingDown { closing = true }
        socket.scheduleFlush()
        processNextRequest()
        timeHead()
        socket.resumeReading()
    }
}
