import HTTP1
import PosixIO
import RPCCore
import RequestTracing

/// A gRPC-Web call on an HTTP/1.1 connection. Its request body is complete before the handler starts (gRPC-Web has
/// only unary and server-streaming calls); its response streams as `transfer-encoding: chunked`, one chunk per read
/// of the response queue, with the same per-call state machine as an HTTP/2 stream.
final class HTTP1GRPCWebCall {
    let number: Int32
    let call: GRPCServerCall
    let web: GRPCWebCall
    let keepAlive: Bool
    /// The chunked response head is out: the body is drawn from the queue as the socket takes it.
    var isStreaming = false

    init(number: Int32, call: GRPCServerCall, web: GRPCWebCall, keepAlive: Bool) {
        self.number = number
        self.call = call
        self.web = web
        self.keepAlive = keepAlive
    }
}

/// Wakes an HTTP/1.1 connection for its gRPC-Web call's response queue (the call's number stands for a stream ID).
struct HTTP1CallWaker: ResponseQueueWaker {
    let connection: LoopBound<HTTP1ServerConnection>

    func wake(streamID: Int32) {
        connection.execute { $0.serviceWebCall(number: streamID) }
    }
}

extension HTTP1ServerConnection {
    /// The bytes read from a call's response queue per chunk.
    private static let chunkBytes = 16 * 1024

    func startWebCall(_ parsed: HTTP1ParsedRequest, head: HeaderBlock) {
        var head = head
        webCallCount &+= 1
        let number = webCallCount
        let configuration = shared.configuration
        let preparation = shared.prepareCall(&head, acceptsNewCalls: !shuttingDown)
        let responses = GRPCResponseQueue(
            highWater: configuration.maxBufferedResponseBytes,
            waker: HTTP1CallWaker(connection: LoopBound(self, loop: loop)), streamID: number,
            metrics: try? preparation.map { shared.grpcMetrics.callStarted($0.route, shard: loop.index) }.get())
        let requestID = RequestID.accept(head.value(of: RequestID.headerName))
        let web = shared.makeWebCall(for: head, requestID: requestID)!
        let deframer = MessageDeframer(maxMessageSize: configuration.maxReceiveMessageSize)
        let call: GRPCServerCall
        var timeout: Duration?
        var failure: RPCError?
        switch preparation {
        case .failure(let error):
            call = GRPCServerCall(
                responses: responses, inbound: .task(MessageStream(), InboundWindow(limit: 0)), deframer: deframer, web: web,
                requestID: requestID)
            failure = error
        case .success(let prepared):
            timeout = prepared.timeout
            let context = ServerContext(
                method: prepared.route.method, metadata: prepared.metadata, timeout: timeout,
                peer: socket.peer, connectionID: socket.id, isGRPCWeb: true,
                browserOrigin: CrossOrigin.of(origin: head.value(of: "origin"), authority: head.authority, tls: socket.tls != nil),
                requestID: requestID, responseSink: responses)
            // The whole body is here already: no flow control to keep.
            call = GRPCServerCall.start(
                route: prepared.route, context: context, responses: responses, deframer: deframer, web: web
            ) { (MessageStream(), InboundWindow(limit: .max)) }
        }
        let webCall = HTTP1GRPCWebCall(number: number, call: call, web: web, keepAlive: parsed.keepAlive)
        self.webCall = webCall
        socket.isStreamingResponse = true
        if let failure {
            failCall(webCall, failure)
            return
        }
        perform(call.state.headersAccepted(), on: webCall)
        if let timeout {
            call.deadlineTimer = loop.scheduleTimer(after: timeout) {
                self.deadlineExpired(number: number)
            }
        }
        do throws(RPCError) {
            call.deframer.append(try web.requestBytes(parsed.request.body))
            try web.requestEnded()
            while let message = try call.deframer.next() {
                _ = call.deliver(message)
                if call.hasTooManyMessages { throw RPCError.tooManyRequestMessages }
            }
        } catch {
            failCall(webCall, error)
            return
        }
        perform(call.state.requestEnded(insideMessage: call.deframer.bufferedBytes > 0), on: webCall)
    }

    /// Acts on what the handler queued: Trailers-Only, the chunked response head, or more body.
    func serviceWebCall(number: Int32) {
        guard !isGone, let webCall, webCall.number == number else { return }
        serviceWebCall(webCall)
    }

    private func serviceWebCall(_ webCall: HTTP1GRPCWebCall) {
        let call = webCall.call
        guard call.state.isActive else { return }
        let control = call.responses.takeControl()
        let queued = GRPCServerStreamStateMachine.QueuedResponse(
            headers: control.headersRequested, messages: control.hasMessages, status: control.status != nil)
        switch call.state.responseQueued(queued) {
        case .submitTrailersOnly:
            stopDeadline(call)
            call.countEnd(control.status?.code ?? .unknown)
            var headers = HTTPHeaders(webCall.web.responseHeaders)
            if let status = control.status {
                StatusFields.forEach(status) { headers.add(name: $0, value: String(decoding: $1, as: UTF8.self)) }
            }
            output.append(
                contentsOf: HTTP1ResponseSerializer.serialize(
                    HTTPResponse(status: 200, headers: headers), keepAlive: webCall.keepAlive && !shuttingDown))
            finish(webCall)
        case .submitResponseHeaders:
            var headers = HTTPHeaders(webCall.web.responseHeaders)
            if let metadata = control.headers {
                StatusFields.forEach(metadata) { headers.add(name: $0, value: String(decoding: $1, as: UTF8.self)) }
            }
            output.append(
                contentsOf: HTTP1ResponseSerializer.chunkedHead(
                    status: 200, headers: headers, keepAlive: webCall.keepAlive && !shuttingDown))
            webCall.isStreaming = true
        case let action:
            perform(action, on: webCall)
        }
        socket.scheduleFlush()
    }

    /// Moves one chunk of the response into `buffer`; after the last message, the trailers frame and the end of the
    /// body.
    func pumpWebResponse(_ webCall: HTTP1GRPCWebCall, into buffer: inout [UInt8]) {
        let body = webCall.web.body
        let status = withUnsafeTemporaryAllocation(byteCount: Self.chunkBytes, alignment: 1) { chunk in
            let (count, status) = body.read(from: webCall.call.responses, into: chunk)
            buffer.append(contentsOf: HTTP1ResponseSerializer.chunk(UnsafeRawBufferPointer(rebasing: chunk[..<count])))
            return status
        }
        guard let status else { return }
        switch webCall.call.state.statusReady() {
        case .writeTrailersFrame:
            stopDeadline(webCall.call)
            webCall.call.countEnd(status.code)
            body.finish(with: status)
            withUnsafeTemporaryAllocation(byteCount: Self.chunkBytes, alignment: 1) { chunk in
                while body.hasPending {
                    let count = body.drainPending(into: chunk)
                    buffer.append(contentsOf: HTTP1ResponseSerializer.chunk(UnsafeRawBufferPointer(rebasing: chunk[..<count])))
                }
            }
            buffer.append(contentsOf: HTTP1ResponseSerializer.lastChunk)
            finish(webCall)
        case let action:
            perform(action, on: webCall)
        }
    }

    /// The response is out whole: the call's "stream" closes (its handler is cancelled if still running), and the
    /// connection moves on to the next request.
    private func finish(_ webCall: HTTP1GRPCWebCall) {
        perform(webCall.call.state.streamClosed(), on: webCall)
        self.webCall = nil
        socket.isStreamingResponse = false
        loop.cancelTimer(shutdownGraceTimer)
        shutdownGraceTimer = nil
        requestEnded(keepAlive: webCall.keepAlive)
    }

    private func failCall(_ webCall: HTTP1GRPCWebCall, _ error: RPCError) {
        guard webCall.call.state.isActive else { return }
        let outcome = webCall.call.fail(error)
        perform(webCall.call.state.failed(outcome), on: webCall)
    }

    private func deadlineExpired(number: Int32) {
        guard !isGone, let webCall, webCall.number == number else { return }
        webCall.call.deadlineTimer = nil
        perform(webCall.call.state.deadlineExpired(), on: webCall)
    }

    func shutdownGraceEnded() {
        shutdownGraceTimer = nil
        guard !isGone, let webCall else { return }
        perform(webCall.call.state.shutdownGraceEnded(), on: webCall)
    }

    private func stopDeadline(_ call: GRPCServerCall) {
        loop.cancelTimer(call.deadlineTimer)
        call.deadlineTimer = nil
    }

    /// Performs a call's action, as ``HTTP2ServerConnection`` does for a stream; HTTP/1.1 has no stream to reset, so a
    /// reset closes the connection (the client sees the body end without trailers).
    func perform(_ action: GRPCServerStreamStateMachine.Action, on webCall: HTTP1GRPCWebCall) {
        let call = webCall.call
        switch action {
        case .nothing:
            break
        case .fail(let failure):
            failCall(webCall, failure.error)
        case .finishRequests:
            if call.runSynchronousHandler() {
                serviceWebCall(webCall)
            } else {
                call.finishRequests()
            }
        case .serviceResponse:
            serviceWebCall(webCall)
        case .resumeData:
            socket.scheduleFlush()
        case .resetStream:
            stopDeadline(call)
            call.countEnd(.internal)
            socket.close()
        case .cancelHandler:
            stopDeadline(call)
            call.cancel()
        case .deliverToHandler, .discardData, .submitResponseHeaders, .submitTrailersOnly, .submitTrailers,
            .writeTrailersFrame:
            assertionFailure("\(action) is performed where its event is reported")
        }
    }
}
