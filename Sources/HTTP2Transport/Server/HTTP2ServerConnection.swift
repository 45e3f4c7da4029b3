import CNGHTTP2
import HTTP1
import PosixIO
import RPCCore
import RequestTracing

/// The server side of one HTTP/2 connection: gRPC calls and plain HTTP routes on its streams.
///
/// Loop-confined. Handlers run as tasks and reach the connection only through ``LoopBound``.
final class HTTP2ServerConnection: HTTP2SessionDelegate, ConnectionProtocol {
    /// Unowned: the socket owns this connection. Everything that can run after the socket closed (tasks, timers)
    /// checks `session`, which ``connectionClosed()`` clears, before touching it.
    ///
    /// Timers hold this connection strongly, not weakly: each fires or is cancelled within a bounded time, and a
    /// weak reference would move the object's reference counts to a side table, slowing every retain and release
    /// of it on the hot path.
    private unowned let socket: SocketConnection
    /// The socket's loop, peer and ID, kept here: every call needs them, and reaching them through the unowned
    /// `socket` costs two atomic operations each time.
    private let loop: EventLoop
    private let peer: String
    private let connectionID: UInt64
    private let shared: ServerShared
    private var session: NGHTTP2Session!
    // The state every request touches is unchecked for exclusive access: the connection is loop-confined and
    // nothing that changes it calls out to code that could reach it again, so the runtime's check (about a hundred
    // instructions per access, a score of accesses per call) could never fire.
    @exclusivity(unchecked) private var streams = StreamTable()
    /// Most callbacks in a row concern one stream; remembering it saves a hash lookup each.
    @exclusivity(unchecked) private var lastStream: ServerStream?
    /// The request head being received. Header blocks of different streams never interleave (RFC 9113 §4.3), so
    /// one serves the connection, its storage reused from request to request.
    @exclusivity(unchecked) private var receivingHead = HeaderBlock()
    /// The stream whose request head ``receivingHead`` holds, until the head is complete.
    @exclusivity(unchecked) private var receivingStreamID: Int32?
    /// The rules the header block being received (a request head or trailers) must keep.
    @exclusivity(unchecked) private var fieldRules = RequestFieldRules(.head)
    /// The method of the last call: clients call one again and again, and a match skips the router's lookup.
    @exclusivity(unchecked) private var recentRoute: RPCRouter.Route?
    private var configuration: HTTP2ServerConfiguration { shared.configuration }
    /// Shared by every call on this connection.
    private let memory = ConnectionMemory()

    /// Keepalive, ping policing and graceful shutdown; the connection performs what it decides. Told of every
    /// request head: unchecked for exclusive access, like the request state above.
    @exclusivity(unchecked) private var management: ServerConnectionManagementStateMachine
    /// The pending timer of each kind the management machine asked for: a new one replaces it, closing cancels all.
    private var managementTimers: [ServerConnectionManagementStateMachine.Timer: TimerHeap.ID] = [:]
    /// Armed by output while not armed; when it fires (`idleBufferRelease` later), the session's frame-buffer pages go
    /// back to the kernel, so a device's connection that went quiet holds none (a busy one faults a page back in once
    /// a period).
    private var pageRelease: TimerHeap.ID?

    init(socket: SocketConnection, shared: ServerShared) throws(TransportError) {
        self.socket = socket
        self.loop = socket.loop
        self.peer = socket.peer
        self.connectionID = socket.id
        self.shared = shared
        management = ServerConnectionManagementStateMachine(
            policy: .init(
                keepaliveInterval: shared.configuration.keepaliveInterval,
                keepaliveTimeout: shared.configuration.keepaliveTimeout,
                minClientPingInterval: shared.configuration.minClientPingInterval,
                shutdownGracePeriod: shared.configuration.shutdownGracePeriod,
                requestHeadTimeout: shared.configuration.requestHeadTimeout),
            now: .now, prefaceDue: socket.acceptedAt + shared.configuration.requestHeadTimeout)
        let options = NGHTTP2Session.Options(
            manualFlowControl: true,
            streamResetBurst: shared.configuration.streamResetBurst,
            streamResetRatePerSecond: shared.configuration.streamResetRatePerSecond,
            maxSendHeaderBlockBytes: shared.configuration.maxResponseHeaderBlockSize,
            checksHTTPMessaging: false)
        super.init()
        session = try NGHTTP2Session(role: .server, delegate: self, options: options)
        session.submitSettings([
            (NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, UInt32(configuration.maxConcurrentStreams)),
            (NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, UInt32(configuration.initialWindowSize)),
            (NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, UInt32(configuration.maxHeaderListSize)),
        ])
        // The connection window covers every stream's window, so one slow stream cannot stall the others.
        session.setLocalWindowSize(Int32(clamping: max(configuration.initialWindowSize * 4, 65_535)))
        perform(management.startActions)
    }

    private func stream(_ id: Int32) -> ServerStream? {
        if let lastStream, lastStream.id == id { return lastStream }
        let found = streams[id]
        if found != nil { lastStream = found }
        return found
    }
    private var bound: LoopBound<HTTP2ServerConnection> { LoopBound(self, loop: loop) }

    // MARK: ConnectionProtocol

    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        management.bytesReceived(at: .now)
        let keepGoing = session.receive(bytes)
        if keepGoing, let action = management.readProcessed() { perform([action]) }
        return keepGoing
    }

    func produceOutput(into buffer: inout [UInt8]) {
        let before = buffer.count
        session.produceOutput(into: &buffer)
        if buffer.count > before, pageRelease == nil { armPageRelease() }
    }

    private func armPageRelease() {
        pageRelease = loop.scheduleTimer(after: configuration.idleBufferRelease) { [self] in
            pageRelease = nil
            if session?.releaseIdlePages() == false { armPageRelease() }
        }
    }

    var isFinished: Bool {
        if management.isClosing { return !session.wantsWrite }
        if !session.wantsReadOrWrite { return true }
        return management.sentFinalGoaway && streams.isEmpty && !session.wantsWrite
    }

    func connectionClosed() {
        management.connectionClosed()
        for timer in managementTimers.values { loop.cancelTimer(timer) }
        managementTimers.removeAll()
        loop.cancelTimer(pageRelease)
        pageRelease = nil
        for stream in streams.streams { streamEnded(stream) }
        streams.removeAll()
        lastStream = nil
        session = nil
    }

    /// A stream closed or its connection died: its call's handler is cancelled.
    private func streamEnded(_ stream: ServerStream) {
        switch stream.phase {
        case .grpc(let call):
            perform(call.state.streamClosed(), on: call, streamID: stream.id)
            call.countEnd(.cancelled)  // unless its status went out
        case .http(let exchange):
            exchange.connectCall?.end(with: .clientCancelled)
        case .receivingHeaders, .immediate:
            break
        }
    }

    func beginGracefulShutdown() {
        guard session != nil else { return }
        perform(management.gracefulShutdownBegan(at: .now))
    }

    // MARK: HTTP2SessionDelegate

    override func headersBegan(streamID: Int32) {
        management.headerBlockStarted()
        guard stream(streamID) == nil else {
            fieldRules = RequestFieldRules(.trailers)
            return
        }
        let stream = ServerStream(id: streamID)
        streams.insert(stream)
        lastStream = stream
        receivingHead.reset()
        receivingStreamID = streamID
        fieldRules = RequestFieldRules(.head)
    }

    override func headerReceived(streamID: Int32, name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> Bool {
        let known = KnownHeader(name)
        guard fieldRules.accept(name: name, value: value, known: known) else {
            // nghttp2 then skips the rest of the block, without a callback at its end; its own reset of the stream
            // finds this one queued.
            management.headerBlockEnded()
            refuseMalformed(streamID: streamID)
            return false
        }
        // Only a request head is kept (not request trailers): its stream is the one ``headersBegan`` made last.
        guard streamID == receivingStreamID else { return true }
        receivingHead.add(name: name, value: value, known: known, limit: configuration.maxHeaderListSize)
        return true
    }

    override func headersReceived(streamID: Int32, endStream: Bool) {
        management.headerBlockEnded()
        guard let stream = stream(streamID) else { return }
        switch stream.phase {
        case .receivingHeaders:
            receivingStreamID = nil
            stream.bodyLength = fieldRules.bodyLength
            // A head that ends the stream ends its body too: checked before anything of the request starts.
            guard fieldRules.headIsComplete, !endStream || stream.bodyLength.endIsValid else {
                return refuseMalformed(streamID: streamID)
            }
            management.requestHeadersReceived()
            startRequest(stream, head: &receivingHead)
            if endStream { endStreamReceived(streamID: streamID) }
        default:
            // Request trailers: only their END_STREAM matters, which they must carry.
            guard endStream else { return refuseMalformed(streamID: streamID) }
            management.requestHeadersReceived()
            endStreamReceived(streamID: streamID)
        }
    }

    /// A request that breaks RFC 9113 §8's rules is never served (§8.1.1): a stream error.
    private func refuseMalformed(streamID: Int32) {
        session.resetStream(streamID: streamID, errorCode: NGHTTP2_PROTOCOL_ERROR)
    }

    override func dataReceived(streamID: Int32, bytes: UnsafeRawBufferPointer) {
        guard let stream = stream(streamID) else {
            session.consume(streamID: streamID, bytes: bytes.count)
            return
        }
        guard stream.bodyLength.add(bytes.count) else {
            // Reset first: the stream is closing then, and its window is not reopened.
            refuseMalformed(streamID: streamID)
            session.consume(streamID: streamID, bytes: bytes.count)
            return
        }
        switch stream.phase {
        case .grpc(let call):
            receiveMessages(bytes, on: call, streamID: streamID)
        case .http(let exchange):
            session.consume(streamID: streamID, bytes: bytes.count)
            guard exchange.response == nil else { return }
            if let call = exchange.connectCall, exchange.body.count + bytes.count > configuration.maxReceiveMessageSize {
                completeHTTP(streamID: streamID, response: call.bodyTooLarge(limit: configuration.maxReceiveMessageSize))
            } else if exchange.connectCall == nil, exchange.body.count + bytes.count > configuration.http1MaxBodyBytes {
                respondImmediately(stream, status: 413, message: "Request body exceeds \(configuration.http1MaxBodyBytes) bytes.")
            } else {
                exchange.body.append(contentsOf: bytes)
            }
        case .receivingHeaders, .immediate:
            session.consume(streamID: streamID, bytes: bytes.count)
        }
    }

    override func endStreamReceived(streamID: Int32) {
        guard let stream = stream(streamID) else { return }
        guard stream.bodyLength.endIsValid else { return refuseMalformed(streamID: streamID) }
        switch stream.phase {
        case .grpc(let call):
            do {
                try call.framed?.requestEnded()
            } catch {
                failCall(call, streamID: streamID, error)
                return
            }
            perform(call.state.requestEnded(insideMessage: call.deframer.bufferedBytes > 0), on: call, streamID: streamID)
        case .http(let exchange):
            guard exchange.response == nil else { return }
            dispatchHTTP(stream, exchange)
        case .receivingHeaders, .immediate:
            break
        }
    }

    override func streamClosed(streamID: Int32, errorCode: UInt32) {
        guard let stream = streams.remove(streamID) else { return }
        if lastStream === stream { lastStream = nil }
        if receivingStreamID == streamID { receivingStreamID = nil }
        streamEnded(stream)
        socket.scheduleFlush()
    }

    override func pingReceived(isAck: Bool) {
        if isAck {
            perform(management.pingAckReceived())
        } else {
            perform(management.pingReceived(at: .now, hasOpenStreams: !streams.isEmpty))
        }
    }

    override func settingsReceived() {
        // The client's preface is complete: from here on keepalive, not the idle timeout, watches the connection.
        socket.idleTimeout = nil
        management.prefaceReceived()
    }

    override func readData(streamID: Int32, into buffer: UnsafeMutableRawBufferPointer) -> HTTP2DataRead {
        guard let stream = stream(streamID) else { return .end(0) }
        switch stream.phase {
        case .grpc(let call):
            if let framed = call.framed, framed.body.isFinal {
                // The rest of the trailers frame, after a buffer that could not hold it all.
                let count = framed.body.drainPending(into: buffer)
                return framed.body.hasPending ? .bytes(count) : .end(count)
            }
            let (count, status) = call.framed?.body.read(from: call.responses, into: buffer) ?? call.responses.read(into: buffer)
            let sent: HTTP2DataRead = count == 0 ? .deferred : .bytes(count)
            guard let status else { return sent }
            switch call.state.statusReady() {
            case .writeTrailersFrame:
                stopDeadline(call)
                call.countEnd(status.code)
                let body = call.framed!.body
                body.finish(with: status)
                let total = count + body.drainPending(into: UnsafeMutableRawBufferPointer(rebasing: buffer[count...]))
                return body.hasPending ? .bytes(total) : .end(total)
            case .submitTrailers:
                stopDeadline(call)
                call.countEnd(status.code)
                guard session.submitTrailers(streamID: streamID, headers: .trailers(for: status)) else {
                    headersNotSent(streamID: streamID, reason: NGHTTP2_ERR_INVALID_ARGUMENT.rawValue)
                    return sent
                }
                return .endWithTrailers(count)
            case let action:
                perform(action, on: call, streamID: streamID)
                return sent
            }
        case .http(let exchange):
            return exchange.readResponse(into: buffer)
        case .immediate(let response):
            return response.read(into: buffer)
        case .receivingHeaders:
            return .end(0)
        }
    }

    override func endStreamSent(streamID: Int32) {
        // Finished before the client did: tell it to stop sending (PROTOCOL-HTTP2.md).
        if !session.isStreamRemoteClosed(streamID) {
            session.resetStream(streamID: streamID, errorCode: NGHTTP2_NO_ERROR)
        }
    }

    /// Response headers or trailers too large to send: a call must still end, so the stream is reset (the client
    /// sees INTERNAL) and the log says why.
    override func headersNotSent(streamID: Int32, reason: Int32) {
        shared.logger.warning(
            "response headers not sent, stream reset",
            ["stream": String(streamID), "reason": NGHTTP2Session.describe(reason),
             "limit_bytes": String(configuration.maxResponseHeaderBlockSize)])
        if let stream = stream(streamID), case .grpc(let call) = stream.phase {
            call.countEnd(.internal)
            perform(call.state.headersRefused(), on: call, streamID: streamID)
            return
        }
        session.resetStream(streamID: streamID, errorCode: NGHTTP2_INTERNAL_ERROR)
        socket.scheduleFlush()
    }

    // MARK: Requests

    /// `head` is the connection's ``receivingHead``, lent (not copied: a copy of a head costs a retain and a release
    /// of each of its strings).
    private func startRequest(_ stream: ServerStream, head: inout HeaderBlock) {
        if head.tooLarge {
            respondImmediately(stream, status: 431, message: "Request headers exceed \(configuration.maxHeaderListSize) bytes.")
            return
        }
        guard head.isGRPC else {
            let target = HTTPRequest(method: head.method, target: head.path)
            let isRouted = shared.httpRouter.matches(path: target.path)
            if let origin = head.value(of: "origin"), !isRouted,
                GRPCWebCORS.isPreflight(
                    method: head.method, origin: origin, requestMethod: head.value(of: "access-control-request-method"))
            {
                respond(stream, GRPCWebCORS.preflightResponse(origin: origin, policy: configuration.grpcWebCORS))
                return
            }
            if !isRouted,
                ConnectUnaryCall.isUnaryCall(
                    method: head.method, target: target, contentType: head.contentType, router: shared.router)
            {
                let call = ConnectUnaryCall(
                    head: &head, request: target, shared: shared,
                    environment: ConnectUnaryCall.Environment(
                        acceptsNewCalls: management.acceptsNewCalls, peer: peer, connectionID: connectionID,
                        memory: memory, tls: socket.tls != nil, shard: loop.index))
                stream.phase = .http(HTTPExchange(request: target, fields: [], connectCall: call))
                return
            }
            if !isRouted,
                UnsupportedCallContentType.looksLikeCall(path: target.path, contentType: head.contentType, router: shared.router)
            {
                respondImmediately(
                    stream, status: 415, message: UnsupportedCallContentType.message(contentType: head.contentType))
                return
            }
            // A plain HTTP route, or a path nothing serves: the router answers (404 for the latter, as over HTTP/1.1).
            let contentType = head.contentType.map { [("content-type", $0)] } ?? []
            stream.phase = .http(HTTPExchange(request: target, fields: contentType + head.fields))
            return
        }
        guard head.method == "POST" else {
            let message = head.framing == nil ? "gRPC requires POST." : "gRPC-Web and Connect streams require POST."
            respondImmediately(stream, status: 405, message: message, headers: [("allow", "POST")])
            return
        }
        if let message = shared.unsupportedConnectStream(framing: head.framing, path: head.path) {
            respondImmediately(stream, status: 415, message: message)
            return
        }
        startCall(stream, head: &head)
    }

    private func startCall(_ stream: ServerStream, head: inout HeaderBlock) {
        let streamID = stream.id
        let connection = bound
        // Unwrapped at once: each copy of the result went through its outlined copy function.
        let prepared: PreparedCall
        switch shared.prepareCall(&head, acceptsNewCalls: management.acceptsNewCalls, recentRoute: recentRoute) {
        case .failure(let error):
            refuseCall(stream, head: &head, error)
            return
        case .success(let success):
            prepared = success
        }
        let rpcProtocol = head.framing?.rpcProtocol ?? .grpc
        let responses = GRPCResponseQueue(
            highWater: configuration.maxBufferedResponseBytes, waker: connection, streamID: streamID,
            metrics: shared.grpcMetrics.callStarted(prepared.route, protocol: rpcProtocol, shard: loop.index))
        let requestID = RequestID.accept(head.value(of: RequestID.headerName))
        let framed = shared.makeFramedBodyCall(for: head, requestID: requestID, transcoder: prepared.transcoder)
        recentRoute = prepared.route
        let context = ServerContext(
            method: prepared.route.method, metadata: prepared.metadata, timeout: prepared.timeout, peer: peer,
            connectionID: connectionID, connection: memory, rpcProtocol: rpcProtocol,
            browserOrigin: framed == nil
                ? nil
                : CrossOrigin.of(
                    origin: head.value(of: "origin"), authority: head.authority,
                    tls: socket.tls != nil),
            requestID: requestID, responseSink: prepared.responseSink(responses))
        let windowLimit = configuration.initialWindowSize
        let call = GRPCServerCall.start(
            route: prepared.route, context: context, responses: responses,
            deframer: MessageDeframer(maxMessageSize: configuration.maxReceiveMessageSize, decompressor: prepared.decompressor),
            framed: framed
        ) {
            let window = InboundWindow(limit: windowLimit)
            let requests = MessageStream { count in
                let acknowledge = window.consumed(count)
                if acknowledge > 0 { connection.execute { $0.acknowledge(streamID: streamID, bytes: acknowledge) } }
            }
            return (requests, window)
        }
        stream.phase = .grpc(call)
        perform(call.state.headersAccepted(), on: call, streamID: streamID)
        armDeadline(call, streamID: streamID, timeout: prepared.timeout)
    }

    /// A call that fails before its handler runs: its stream still answers with the gRPC (or gRPC-Web) status.
    private func refuseCall(_ stream: ServerStream, head: inout HeaderBlock, _ error: RPCError) {
        let responses = GRPCResponseQueue(
            highWater: configuration.maxBufferedResponseBytes, waker: bound, streamID: stream.id, metrics: nil)
        let requestID = RequestID.accept(head.value(of: RequestID.headerName))
        let call = GRPCServerCall(
            responses: responses, inbound: .task(MessageStream(), InboundWindow(limit: 0)),
            deframer: MessageDeframer(maxMessageSize: configuration.maxReceiveMessageSize),
            framed: shared.makeFramedBodyCall(for: head, requestID: requestID), requestID: requestID)
        stream.phase = .grpc(call)
        failCall(call, streamID: stream.id, error)
    }

    /// Takes the timeout, not the context's deadline: an optional `ContinuousClock.Instant` (a type whose layout is
    /// not known at compile time) is copied through runtime type information each time it moves.
    private func armDeadline(_ call: GRPCServerCall, streamID: Int32, timeout: Duration?) {
        guard let timeout else { return }
        call.deadlineTimer = loop.scheduleTimer(after: timeout) {
            self.deadlineExpired(streamID: streamID)
        }
    }

    private func receiveMessages(_ bytes: UnsafeRawBufferPointer, on call: GRPCServerCall, streamID: Int32) {
        guard case .deliverToHandler = call.state.dataReceived() else {
            session.consume(streamID: streamID, bytes: bytes.count)
            return
        }
        var messageBytes = 0
        var tooManyMessages = false
        do {
            try call.receiveRequestBytes(bytes) { message in
                messageBytes += call.deliver(message)
                tooManyMessages = call.hasTooManyMessages
                return !tooManyMessages
            }
            if tooManyMessages {
                session.consume(streamID: streamID, bytes: bytes.count)
                failCall(call, streamID: streamID, .tooManyRequestMessages)
                return
            }
        } catch {
            session.consume(streamID: streamID, bytes: bytes.count)
            failCall(call, streamID: streamID, error)
            return
        }
        guard case .task(_, let window) = call.inbound else {
            session.consume(streamID: streamID, bytes: bytes.count)
            return
        }
        let acknowledge = window.received(bytes.count, queuedMessageBytes: messageBytes)
        if acknowledge > 0 { session.consume(streamID: streamID, bytes: acknowledge) }
    }

    private func acknowledge(streamID: Int32, bytes: Int) {
        guard session != nil else { return }
        session.consume(streamID: streamID, bytes: bytes)
        socket.scheduleFlush()
    }

    /// Ends a call with `error` as its status (unless it has ended already).
    private func failCall(_ call: GRPCServerCall, streamID: Int32, _ error: RPCError) {
        guard call.state.isActive else { return }
        let outcome = call.fail(error)
        perform(call.state.failed(outcome), on: call, streamID: streamID)
    }

    private func deadlineExpired(streamID: Int32) {
        guard let stream = stream(streamID), case .grpc(let call) = stream.phase else { return }
        call.deadlineTimer = nil
        perform(call.state.deadlineExpired(), on: call, streamID: streamID)
    }

    /// Frees a call's deadline timer (possibly hours away) once the call can no longer miss it.
    private func stopDeadline(_ call: GRPCServerCall) {
        // Most calls have no deadline: no call into the loop for them.
        guard let timer = call.deadlineTimer else { return }
        loop.cancelTimer(timer)
        call.deadlineTimer = nil
    }

    /// Acts on what the handler queued: response headers, Trailers-Only, or more DATA.
    private func serviceCall(streamID: Int32) {
        guard session != nil, let stream = stream(streamID), case .grpc(let call) = stream.phase else { return }
        serviceCall(call, streamID: streamID)
    }

    private func serviceCall(_ call: GRPCServerCall, streamID: Int32) {
        // A call that has ended leaves its queue alone: the status is out, or the stream is gone.
        guard call.state.isActive else { return }
        let control = call.responses.takeControl()
        let queued = GRPCServerStreamStateMachine.QueuedResponse(
            headers: control.headersRequested, messages: control.hasMessages, status: control.status != nil)
        switch call.state.responseQueued(queued) {
        case .submitTrailersOnly:
            var headers = responseHeaders(call)
            if let status = control.status { headers.addStatus(status) }
            call.countEnd(control.status?.code ?? .unknown)
            stopDeadline(call)
            submitCallResponse(call, streamID: streamID, headers: headers, hasBody: false)
        case .submitResponseHeaders:
            var headers = responseHeaders(call)
            if let metadata = control.headers, !metadata.isEmpty { headers.add(metadata) }
            submitCallResponse(call, streamID: streamID, headers: headers, hasBody: true)
        case let action:
            perform(action, on: call, streamID: streamID)
        }
        socket.scheduleFlush()
    }

    /// The start of a call's response head: gRPC's, shared by every call (``submitCallResponse`` adds the request
    /// ID); or the gRPC-Web call's own, which has it.
    private func responseHeaders(_ call: GRPCServerCall) -> HeaderList {
        guard let framed = call.framed else { return shared.grpcResponseHeaders }
        var headers = HeaderList()
        headers.add(":status", "200")
        for (name, value) in framed.responseHeaders { headers.add(name, value) }
        return headers
    }

    /// Response headers nghttp2 refuses at once end the call like headers it drops later (``headersNotSent``).
    private func submitCallResponse(_ call: GRPCServerCall, streamID: Int32, headers: HeaderList, hasBody: Bool) {
        let result =
            call.framed == nil
            ? session.submitResponse(
                streamID: streamID, headers: headers, appendingUnindexed: (RequestID.headerName, call.requestID),
                hasBody: hasBody)
            : session.submitResponse(streamID: streamID, headers: headers, hasBody: hasBody)
        if result != 0 { headersNotSent(streamID: streamID, reason: result) }
    }

    /// Performs a call's action that needs nothing but the call. DATA, the response queue and the data provider
    /// perform the actions only their events return (deliver, submit headers or trailers) where they report them.
    private func perform(_ action: GRPCServerStreamStateMachine.Action, on call: GRPCServerCall, streamID: Int32) {
        switch action {
        case .nothing:
            break
        case .fail(let failure):
            failCall(call, streamID: streamID, failure.error)
        case .finishRequests:
            if call.runSynchronousHandler() {
                serviceCall(call, streamID: streamID)
            } else {
                call.finishRequests()
            }
        case .serviceResponse:
            serviceCall(call, streamID: streamID)
        case .resumeData:
            session.resumeData(streamID: streamID)
        case .resetStream(let code):
            stopDeadline(call)
            call.countEnd(code == .cancel ? .cancelled : .internal)
            session.resetStream(streamID: streamID, errorCode: code == .cancel ? NGHTTP2_CANCEL : NGHTTP2_INTERNAL_ERROR)
            socket.scheduleFlush()
        case .cancelHandler:
            stopDeadline(call)
            call.cancel()
        case .deliverToHandler, .discardData, .submitResponseHeaders, .submitTrailersOnly, .submitTrailers,
            .writeTrailersFrame:
            assertionFailure("\(action) is performed where its event is reported")
        }
    }

    fileprivate func wake(streamID: Int32) {
        serviceCall(streamID: streamID)
    }

    // MARK: Plain HTTP

    private func dispatchHTTP(_ stream: ServerStream, _ exchange: HTTPExchange) {
        if let call = exchange.connectCall {
            let connection = bound
            let streamID = stream.id
            let response = call.respond(body: exchange.body) { response in
                connection.execute { $0.completeHTTP(streamID: streamID, response: response) }
            }
            if let response { completeHTTP(streamID: streamID, response: response) }
            return
        }
        var request = exchange.makeRequest()
        request.peer = peer
        let router = shared.httpRouter
        let connection = bound
        let streamID = stream.id
        Task {
            let response = await router.respond(to: request)
            connection.execute { $0.completeHTTP(streamID: streamID, response: response) }
        }
    }

    private func completeHTTP(streamID: Int32, response: HTTPResponse) {
        guard session != nil, let stream = stream(streamID), case .http(let exchange) = stream.phase,
            exchange.response == nil
        else { return }
        exchange.response = ResponseBody(bytes: response.body)
        submit(response, streamID: streamID)
    }

    /// A response the transport makes itself in full (a CORS preflight's).
    private func respond(_ stream: ServerStream, _ response: HTTPResponse) {
        stream.phase = .immediate(ResponseBody(bytes: response.body))
        submit(response, streamID: stream.id)
    }

    private func submit(_ response: HTTPResponse, streamID: Int32) {
        var headers = HeaderList(fieldCapacity: response.headers.count + 2)
        headers.add(":status", String(response.status))
        for (name, value) in response.headers where !HTTPExchange.isConnectionSpecific(name) {
            headers.add(name, value)
        }
        if response.status != 204, response.status != 304 { headers.add("content-length", String(response.body.count)) }
        session.submitResponse(streamID: streamID, headers: headers, hasBody: !response.body.isEmpty)
        socket.scheduleFlush()
    }

    private func respondImmediately(
        _ stream: ServerStream, status: Int, message: String, headers extra: [(String, String)] = []
    ) {
        let body = ResponseBody(bytes: Array((message + "\n").utf8))
        stream.phase = .immediate(body)
        var headers = HeaderList()
        headers.add(":status", String(status))
        headers.add("content-type", "text/plain; charset=utf-8")
        for (name, value) in extra { headers.add(name, value) }
        headers.add("content-length", String(body.bytes.count))
        session.submitResponse(streamID: stream.id, headers: headers, hasBody: true)
        socket.scheduleFlush()
    }

    // MARK: Connection management

    /// Performs what the management machine decided, in order.
    private func perform(_ actions: [ServerConnectionManagementStateMachine.Action]) {
        guard session != nil, !actions.isEmpty else { return }
        var queuedFrames = false
        for action in actions {
            switch action {
            case .sendPing:
                session.submitPing()
                queuedFrames = true
            case .sendShutdownNotice:
                session.submitShutdownNotice()
                queuedFrames = true
            case .sendGoaway(let code, let debugData):
                session.submitGoaway(
                    errorCode: code == .noError ? NGHTTP2_NO_ERROR : NGHTTP2_ENHANCE_YOUR_CALM, debugData: debugData)
                queuedFrames = true
            case .scheduleTimer(let timer, let deadline):
                loop.cancelTimer(managementTimers[timer])
                managementTimers[timer] = loop.scheduleTimer(at: deadline) { self.managementTimerFired(timer) }
            case .endCallsThatEndAtShutdown:
                forEachCall { $0.shutdownBegan() }
                queuedFrames = true
            case .abortCalls:
                forEachCall { $0.shutdownGraceEnded() }
                for stream in streams.streams {
                    guard case .http(let exchange) = stream.phase else { continue }
                    exchange.connectCall?.end(with: .serverShuttingDown)
                }
                queuedFrames = true
            case .closeAfterFlush:
                // `isFinished` reads the machine's phase once the output is written.
                queuedFrames = true
            case .countRequestHeadTimeout:
                shared.admission.countRequestHeadTimeout(.http2)
            case .closeNow(let reason):
                shared.logger.info("closing connection: \(reason)", ["peer": peer])
                // Closing clears `session`: nothing after this may touch it.
                socket.close()
                return
            }
        }
        if queuedFrames { socket.scheduleFlush() }
    }

    private func managementTimerFired(_ timer: ServerConnectionManagementStateMachine.Timer) {
        managementTimers[timer] = nil
        // A nil session means the socket is gone already (and must not be touched).
        guard session != nil else { return }
        perform(management.timerFired(timer, at: .now))
    }

    /// Reports a connection-wide event to every call and performs what each call's machine returns.
    private func forEachCall(_ event: (GRPCServerStreamStateMachine) -> GRPCServerStreamStateMachine.Action) {
        for stream in streams.streams {
            guard case .grpc(let call) = stream.phase else { continue }
            perform(event(call.state), on: call, streamID: stream.id)
        }
    }
}

extension GRPCServerStreamStateMachine.Failure {
    /// The status the client gets when the transport ends its call.
    var error: RPCError {
        switch self {
        case .deadlineExceeded:
            .deadlineExceeded
        case .shuttingDown:
            RPCError(code: .unavailable, message: "The server is shutting down; reconnect to reach another instance.")
        case .shutdownGraceEnded:
            .serverShuttingDown
        case .requestEndedInsideMessage:
            RPCError(code: .internal, message: "The request ended inside a message.")
        }
    }
}

extension LoopBound: ResponseQueueWaker where Value == HTTP2ServerConnection {
    func wake(streamID: Int32) {
        execute { $0.wake(streamID: streamID) }
    }
}
