import HTTP1
import PosixIO
import RPCCore
import RequestTracing

/// A gRPC-Web call on an HTTP/1.1 connection. Its request body is complete before the handler starts (gRPC-Web has
/// only unary and server-streaming calls); its response streams as `transfer-encoding: chunked`, one chunk per read
/// of the response queue, with the same per-call state machine as an HTTP/2 stream.
final class HTTP1FramedCall {
    let number: Int32
    let call: GRPCServerCall
    let framed: FramedBodyCall
    let keepAlive: Bool
    /// The chunked response head is out: the body is drawn from the queue as the socket takes it.
    var isStreaming = false

    init(number: Int32, call: GRPCServerCall, framed: FramedBodyCall, keepAlive: Bool) {
        self.number = number
        self.call = call
        self.framed = framed
        self.keepAlive = keepAlive
    }
}

/// Wakes an HTTP/1.1 connection for its gRPC-Web call's response queue (the call's number stands for a stream ID).
struct HTTP1CallWaker: ResponseQueueWaker {
    let connection: LoopBound<HTTP1ServerConnection>

    func wake(streamID: Int32) {
        connection.execute { $0.serviceFramedCall(number: streamID) }
    }
}

extension HTTP1ServerConnection {
    /// The bytes read from a call's response queue per chunk.
    private static let chunkBytes = 16 * 1024

    func startFramedCall(_ parsed: HTTP1ParsedRequest, head: HeaderBlock) {
        var head = head
        framedCallCount &+= 1
        let number = framedCallCount
        let configuration = shared.configuration
        let preparation = shared.prepareCall(&head, acceptsNewCalls: !shuttingDown)
        let rpcProtocol = head.framing?.rpcProtocol ?? .grpcWeb
        let responses = GRPCResponseQueue(
            highWater: configuration.maxBufferedResponseBytes,
            waker: HTTP1CallWaker(connection: LoopBound(self, loop: loop)), streamID: number,
            metrics: try? preparation.map {
                shared.grpcMetrics.callStarted($0.route, protocol: rpcProtocol, shard: loop.index)
            }.get())
        let requestID = RequestID.accept(head.value(of: RequestID.headerName))
        let prepared = try? preparation.get()
        let framed = shared.makeFramedBodyCall(for: head, requestID: requestID, transcoder: prepared?.transcoder)!
        let deframer = MessageDeframer(
            maxMessageSize: configuration.maxReceiveMessageSize, decompressor: prepared?.decompressor)
        let call: GRPCServerCall
        var timeout: Duration?
        var failure: RPCError?
        switch preparation {
        case .failure(let error):
            call = GRPCServerCall(
                responses: responses, inbound: .task(MessageStream(), InboundWindow(limit: 0)), deframer: deframer, framed: framed,
                requestID: requestID)
            failure = error
        case .success(let prepared):
            timeout = prepared.timeout
            let context = ServerContext(
                method: prepared.route.method, metadata: prepared.metadata, timeout: timeout,
                peer: socket.peer, connectionID: socket.id, rpcProtocol: rpcProtocol,
                browserOrigin: CrossOrigin.of(origin: head.value(of: "origin"), authority: head.authority, tls: socket.tls != nil),
                requestID: requestID, responseSink: prepared.responseSink(responses))
            // The whole body is here already: no flow control to keep.
            call = GRPCServerCall.start(
                route: prepared.route, context: context, responses: responses, deframer: deframer, framed: framed
            ) { (MessageStream(), InboundWindow(limit: .max)) }
        }
        let framedCall = HTTP1FramedCall(number: number, call: call, framed: framed, keepAlive: parsed.keepAlive)
        self.framedCall = framedCall
        socket.isStreamingResponse = true
        if let failure {
            failCall(framedCall, failure)
            return
        }
        perform(call.state.headersAccepted(), on: framedCall)
        if let timeout {
            call.deadlineTimer = loop.scheduleTimer(after: timeout) {
                self.deadlineExpired(number: number)
            }
        }
        do throws(RPCError) {
            call.deframer.append(try framed.requestBytes(parsed.request.body))
            try framed.requestEnded()
            while let message = try call.deframer.next() {
                _ = call.deliver(try framed.requestMessage(message))
                if call.hasTooManyMessages { throw RPCError.tooManyRequestMessages }
            }
        } catch {
            failCall(framedCall, error)
            return
        }
        perform(call.state.requestEnded(insideMessage: call.deframer.bufferedBytes > 0), on: framedCall)
    }

    /// Acts on what the handler queued: Trailers-Only, the chunked response head, or more body.
    func serviceFramedCall(number: Int32) {
        guard !isGone, let framedCall, framedCall.number == number else { return }
        serviceFramedCall(framedCall)
    }

    private func serviceFramedCall(_ framedCall: HTTP1FramedCall) {
        let call = framedCall.call
        guard call.state.isActive else { return }
        let control = call.responses.takeControl()
        let queued = GRPCServerStreamStateMachine.QueuedResponse(
            headers: control.headersRequested, messages: control.hasMessages, status: control.status != nil)
        switch call.state.responseQueued(queued) {
        case .submitTrailersOnly:
            stopDeadline(call)
            call.countEnd(control.status?.code ?? .unknown)
            var headers = HTTPHeaders(framedCall.framed.responseHeaders)
            if let status = control.status {
                StatusFields.forEach(status) { headers.add(name: $0, value: String(decoding: $1, as: UTF8.self)) }
            }
            output.append(
                contentsOf: HTTP1ResponseSerializer.serialize(
                    HTTPResponse(status: 200, headers: headers), keepAlive: framedCall.keepAlive && !shuttingDown))
            finish(framedCall)
        case .submitResponseHeaders:
            var headers = HTTPHeaders(framedCall.framed.responseHeaders)
            if let metadata = control.headers {
                StatusFields.forEach(metadata) { headers.add(name: $0, value: String(decoding: $1, as: UTF8.self)) }
            }
            output.append(
                contentsOf: HTTP1ResponseSerializer.chunkedHead(
                    status: 200, headers: headers, keepAlive: framedCall.keepAlive && !shuttingDown))
            framedCall.isStreaming = true
        case let action:
            perform(action, on: framedCall)
        }
        socket.scheduleFlush()
    }

    /// Moves one chunk of the response into `buffer`; after the last message, the trailers frame and the end of the
    /// body.
    func pumpFramedResponse(_ framedCall: HTTP1FramedCall, into buffer: inout [UInt8]) {
        let body = framedCall.framed.body
        let status = withUnsafeTemporaryAllocation(byteCount: Self.chunkBytes, alignment: 1) { chunk in
            let (count, status) = body.read(from: framedCall.call.responses, into: chunk)
            buffer.append(contentsOf: HTTP1ResponseSerializer.chunk(UnsafeRawBufferPointer(rebasing: chunk[..<count])))
            return status
        }
        guard let status else { return }
        switch framedCall.call.state.statusReady() {
        case .writeTrailersFrame:
            stopDeadline(framedCall.call)
            framedCall.call.countEnd(status.code)
            body.finish(with: status)
            withUnsafeTemporaryAllocation(byteCount: Self.chunkBytes, alignment: 1) { chunk in
                while body.hasPending {
                    let count = body.drainPending(into: chunk)
                    buffer.append(contentsOf: HTTP1ResponseSerializer.chunk(UnsafeRawBufferPointer(rebasing: chunk[..<count])))
                }
            }
            buffer.append(contentsOf: HTTP1ResponseSerializer.lastChunk)
            finish(framedCall)
        case let action:
            perform(action, on: framedCall)
        }
    }

    /// The response is out whole: the call's "stream" closes (its handler is cancelled if still running), and the
    /// connection moves on to the next request.
    private func finish(_ framedCall: HTTP1FramedCall) {
        perform(framedCall.call.state.streamClosed(), on: framedCall)
        self.framedCall = nil
        socket.isStreamingResponse = false
        loop.cancelTimer(shutdownGraceTimer)
        shutdownGraceTimer = nil
        requestEnded(keepAlive: framedCall.keepAlive)
    }

    private func failCall(_ framedCall: HTTP1FramedCall, _ error: RPCError) {
        guard framedCall.call.state.isActive else { return }
        let outcome = framedCall.call.fail(error)
        perform(framedCall.call.state.failed(outcome), on: framedCall)
    }

    private func deadlineExpired(number: Int32) {
        guard !isGone, let framedCall, framedCall.number == number else { return }
        framedCall.call.deadlineTimer = nil
        perform(framedCall.call.state.deadlineExpired(), on: framedCall)
    }

    func shutdownGraceEnded() {
        shutdownGraceTimer = nil
        guard !isGone else { return }
        connectUnaryCall?.end(with: .serverShuttingDown)
        guard let framedCall else { return }
        perform(framedCall.call.state.shutdownGraceEnded(), on: framedCall)
    }

    private func stopDeadline(_ call: GRPCServerCall) {
        loop.cancelTimer(call.deadlineTimer)
        call.deadlineTimer = nil
    }

    /// Performs a call's action, as ``HTTP2ServerConnection`` does for a stream; HTTP/1.1 has no stream to reset, so a
    /// reset closes the connection (the client sees the body end without trailers).
    func perform(_ action: GRPCServerStreamStateMachine.Action, on framedCall: HTTP1FramedCall) {
        let call = framedCall.call
        switch action {
        case .nothing:
            break
        case .fail(let failure):
            failCall(framedCall, failure.error)
        case .finishRequests:
            if call.runSynchronousHandler() {
                serviceFramedCall(framedCall)
            } else {
                call.finishRequests()
            }
        case .serviceResponse:
            serviceFramedCall(framedCall)
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
