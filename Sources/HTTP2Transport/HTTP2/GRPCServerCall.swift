import RequestTracing
import RPCCore

/// Loop-side state of one gRPC call on an HTTP/2 stream.
final class GRPCServerCall {
    /// How request messages reach the handler.
    enum Inbound {
        /// A handler task reads them from a stream, with flow control tied to its reading.
        case task(MessageStream, InboundWindow)
        /// A synchronous unary handler runs on the loop once the request is complete; messages wait here.
        case synchronous(SynchronousHandler)
    }

    /// The handler and context of a synchronous call, boxed: the inbound side is looked at for every DATA frame,
    /// and copying a route and a context out each time cost more than the handler.
    final class SynchronousHandler {
        let route: RPCRouter.Route
        let context: ServerContext

        init(route: RPCRouter.Route, context: ServerContext) {
            self.route = route
            self.context = context
        }
    }

    let responses: GRPCResponseQueue
    let inbound: Inbound
    /// Set for gRPC-Web calls.
    let web: GRPCWebCall?
    /// Echoed in the response headers.
    let requestID: String
    var deframer: MessageDeframer
    var collected: [[UInt8]] = []
    var task: Task<Void, Never>?
    var deadlineTimer: TimerHeap.ID?
    /// Where the call is in its life; the connection acts on what its transitions return.
    var state: GRPCServerStreamStateMachine
    /// Whether a request message reached the handler, and whether the call's end is counted (once, however it
    /// ends).
    private var receivedMessage = false
    private var endCounted = false

    init(
        responses: GRPCResponseQueue, inbound: Inbound, deframer: MessageDeframer, endsAtShutdown: Bool = false,
        web: GRPCWebCall? = nil, requestID: String
    ) {
        self.responses = responses
        self.inbound = inbound
        self.deframer = deframer
        self.web = web
        self.requestID = requestID
        self.state = GRPCServerStreamStateMachine(endsAtShutdown: endsAtShutdown, trailersInBody: web != nil)
    }

    /// The call for `route`, its handler started: synchronous when the handler allows it (it runs once the request
    /// is complete), else a task reading the request stream `makeRequests` makes, with its flow-control window
    /// (made only then: the synchronous path is the hot one).
    static func start(
        route: RPCRouter.Route, context: ServerContext, responses: GRPCResponseQueue, deframer: MessageDeframer,
        web: GRPCWebCall?, makeRequests: () -> (MessageStream, InboundWindow)
    ) -> GRPCServerCall {
        if route.handler.synchronousUnary != nil {
            let handler = SynchronousHandler(route: route, context: context)
            return GRPCServerCall(
                responses: responses, inbound: .synchronous(handler), deframer: deframer, web: web,
                requestID: context.requestID)
        }
        let (requests, window) = makeRequests()
        let call = GRPCServerCall(
            responses: responses, inbound: .task(requests, window), deframer: deframer,
            endsAtShutdown: route.handler.endsAtShutdown, web: web, requestID: context.requestID)
        let handler = route.handler
        call.task = Task {
            await RequestID.$current.withValue(context.requestID) { await handler.run(requests: requests, context: context) }
        }
        return call
    }

    /// Appends request body bytes to the deframer (decoded first in gRPC-Web text mode).
    func appendRequestBytes(_ bytes: UnsafeRawBufferPointer) throws(RPCError) {
        if let web {
            deframer.append(try web.requestBytes(bytes))
        } else {
            deframer.append(bytes)
        }
    }

    /// Stops the handler and makes `error` the status the client gets; tells the loop what to do next.
    func fail(_ error: RPCError) -> GRPCResponseQueue.AbortOutcome {
        // The status is recorded before the handler learns of it, so its own reaction (CANCELLED) cannot win.
        let outcome = responses.abort(with: RPCStatus(error))
        finishRequests(throwing: error)
        task?.cancel()
        return outcome
    }

    /// Counts the call's end with the status the client gets; later reports of the same end are ignored.
    func countEnd(_ code: RPCError.Code) {
        guard !endCounted, let metrics = responses.metrics else { return }
        endCounted = true
        metrics.finished(code, handlerRan: receivedMessage)
    }

    /// The stream is gone (reset, closed, or its connection died): stop the handler and wake its writers.
    func cancel() {
        responses.close()
        finishRequests(throwing: RPCError(code: .cancelled, message: "The client cancelled the call."))
        task?.cancel()
    }

    /// Hands a deframed request message on; returns the bytes now waiting for the handler (0 when synchronous).
    func deliver(_ message: [UInt8]) -> Int {
        responses.metrics?.messageReceived()
        receivedMessage = true
        switch inbound {
        case .task(let requests, _):
            requests.yield(message)
            return message.count
        case .synchronous:
            // A unary call has one message: a second one ends the call at once rather than being buffered.
            collected.append(message)
            return 0
        }
    }

    /// True for a synchronous unary call that has received more than its one message.
    var hasTooManyMessages: Bool {
        if case .synchronous = inbound { return collected.count > 1 }
        return false
    }

    /// Ends the handler's request stream (a no-op the second time).
    func finishRequests(throwing error: RPCError? = nil) {
        if case .task(let requests, _) = inbound { requests.finish(throwing: error) }
    }

    /// Runs a synchronous handler now that the request is complete. False when the call is not synchronous.
    func runSynchronousHandler() -> Bool {
        guard case .synchronous(let handler) = inbound else { return false }
        guard collected.count == 1 else {
            _ = responses.abort(with: RPCStatus(collected.isEmpty ? .noRequestMessage : .tooManyRequestMessages))
            return true
        }
        let (response, status) = RequestID.$current.withValue(requestID) {
            handler.route.handler.runSynchronously(request: collected[0], context: handler.context)
        }
        collected = []
        responses.complete(message: response, status: status)
        return true
    }
}
