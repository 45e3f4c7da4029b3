import PosixIO
import RPCCore
import RequestTracing

/// Loop-side state of one gRPC call on an HTTP/2 stream.
final class GRPCServerCall {
    /// How request messages reach the handler.
    enum Inbound {
        /// A handler task reads them from a stream, with flow control tied to its reading.
        case task(MessageStream, InboundWindow)
        /// A synchronous unary handler runs on the loop once the request is complete (``synchronous``); its one
        /// message waits in ``request``.
        case synchronous
    }

    /// The route and context of a synchronous call, stored in the call itself: one object fewer per call, and
    /// looking at ``inbound`` for each DATA frame copies nothing.
    private let synchronousRoute: RPCRouter.Route?
    private let synchronousContext: ServerContext?

    let responses: GRPCResponseQueue
    let inbound: Inbound
    /// Set for gRPC-Web calls and Connect streams.
    let framed: FramedBodyCall?
    /// Echoed in the response headers.
    let requestID: String
    /// Loop-confined, and the body ``receiveRequestBytes(_:_:)`` runs must not touch it: unchecked for exclusive
    /// access (a runtime check on each DATA frame and at the request's end).
    @exclusivity(unchecked) var deframer: MessageDeframer
    /// A synchronous call's request message, and how many arrived (a unary call must have exactly one; a task's
    /// messages go to its stream and are not counted here).
    private var request: [UInt8]?
    private var requestCount = 0
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
        framed: FramedBodyCall? = nil, requestID: String, synchronousRoute: RPCRouter.Route? = nil,
        synchronousContext: ServerContext? = nil
    ) {
        self.responses = responses
        self.inbound = inbound
        self.synchronousRoute = synchronousRoute
        self.synchronousContext = synchronousContext
        self.deframer = deframer
        self.framed = framed
        self.requestID = requestID
        self.state = GRPCServerStreamStateMachine(
            endsAtShutdown: endsAtShutdown, trailersInBody: framed != nil,
            allowsTrailersOnly: framed?.framing.allowsTrailersOnly ?? true)
    }

    /// The call for `route`, its handler started: synchronous when the handler allows it (it runs once the request
    /// is complete), else a task reading the request stream `makeRequests` makes, with its flow-control window
    /// (made only then: the synchronous path is the hot one).
    static func start(
        route: RPCRouter.Route, context: ServerContext, responses: GRPCResponseQueue, deframer: MessageDeframer,
        framed: FramedBodyCall?, makeRequests: () -> (MessageStream, InboundWindow)
    ) -> GRPCServerCall {
        if route.handler.synchronousUnary != nil {
            return GRPCServerCall(
                responses: responses, inbound: .synchronous, deframer: deframer, framed: framed,
                requestID: context.requestID, synchronousRoute: route, synchronousContext: context)
        }
        let (requests, window) = makeRequests()
        let call = GRPCServerCall(
            responses: responses, inbound: .task(requests, window), deframer: deframer,
            endsAtShutdown: route.handler.endsAtShutdown, framed: framed, requestID: context.requestID)
        // A deadline spent on the way in (`grpc-timeout: 1n`) starts no handler: its timer, due on this turn of the
        // loop, ends the call with DEADLINE_EXCEEDED, and nothing the handler would have done is done.
        guard !context.deadlineHasPassed else { return call }
        let handler = route.handler
        call.task = Task {
            await RequestID.$taskValue.withValue(context.requestID) { await handler.run(requests: requests, context: context) }
        }
        return call
    }

    /// Passes request body bytes (decoded first in gRPC-Web text mode) through the deframer, handing each whole
    /// message (a Connect JSON stream's made binary) to `body` until it returns false. `body` must not touch the
    /// deframer.
    func receiveRequestBytes(
        _ bytes: UnsafeRawBufferPointer, _ body: ([UInt8]) throws(RPCError) -> Bool
    ) throws(RPCError) {
        if let framed {
            try deframer.receive(try framed.requestBytes(bytes)) { (message) throws(RPCError) in
                try body(try framed.requestMessage(message))
            }
        } else {
            try deframer.receive(bytes, body)
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
        finishRequests(throwing: .clientCancelled)
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
            requestCount += 1
            if requestCount == 1 { request = message }
            return 0
        }
    }

    /// True for a synchronous unary call that has received more than its one message.
    var hasTooManyMessages: Bool {
        requestCount > 1
    }

    /// Ends the handler's request stream (a no-op the second time).
    func finishRequests(throwing error: RPCError? = nil) {
        if case .task(let requests, _) = inbound { requests.finish(throwing: error) }
    }

    /// Runs a synchronous handler now that the request is complete. False when the call is not synchronous.
    ///
    /// A handler that must wait (``UnaryAnswer/later(_:)``) continues as a task, which answers through the response
    /// queue as any task does; the loop goes on serving meanwhile.
    func runSynchronousHandler() -> Bool {
        guard let route = synchronousRoute, let context = synchronousContext else { return false }
        guard requestCount == 1, let request else {
            _ = responses.abort(with: RPCStatus(requestCount == 0 ? .noRequestMessage : .tooManyRequestMessages))
            return true
        }
        self.request = nil
        let outcome = RequestID.withThreadValue(requestID) {
            route.handler.runSynchronously(request: request, context: context)
        }
        switch outcome {
        case .answered(let response, let status):
            responses.complete(message: response, status: status)
        case .later(let rest):
            let handler = route.handler
            let requestID = requestID
            task = Task {
                await RequestID.$taskValue.withValue(requestID) { await handler.run(later: rest, context: context) }
            }
        }
        return true
    }
}

extension RPCError {
    /// The status of a call whose client left (a reset stream, a closed connection).
    static let clientCancelled = RPCError(code: .cancelled, message: "The client cancelled the call.")
    /// The status of a call the server ends, or refuses, as it shuts down.
    static let serverShuttingDown = RPCError(code: .unavailable, message: "The server is shutting down.")
}
