/// The loop-side life of one gRPC call on an HTTP/2 stream, from its accepted request head to the stream's close.
///
/// Pure: no I/O, no clock, no handler. The connection reports what happened (a DATA frame, the handler's output,
/// a deadline, a reset) and performs the returned action with nghttp2 and the call's handler. Events that come too
/// late (a wake after the status went out, a deadline after a reset) return `.nothing`; events that cannot happen
/// in a state reset the stream with INTERNAL_ERROR rather than trap, so a call never hangs on a mistake.
///
/// The response queue (``GRPCResponseQueue``) stays the thread-safe handoff of what the handler produced; this type
/// decides what the connection does with it.
struct GRPCServerStreamStateMachine {
    enum State: Equatable {
        /// The request head arrived; the call is not accepted yet.
        case idle
        /// The request is open; no response headers yet.
        case open
        /// The request ended (END_STREAM, or the transport failed the call); no response headers yet.
        case requestClosed
        /// Response headers are out; the request is still open.
        case responding
        /// Response headers are out and the request ended.
        case respondingRequestClosed
        /// The status went out (trailers or Trailers-Only); the stream waits for nghttp2 to close it.
        case statusSubmitted
        /// The transport reset the stream: its headers could not be sent, or the response was cut mid-message.
        case reset
        /// nghttp2 closed the stream.
        case closed
    }

    /// Why the transport ends a call itself; the connection turns it into the status the client gets.
    enum Failure: Equatable {
        case deadlineExceeded
        /// Graceful shutdown began and the handler would never end on its own (``RPCHandler/endsAtShutdown``).
        case shuttingDown
        /// The shutdown grace period is over.
        case shutdownGraceEnded
        /// END_STREAM arrived with part of a message buffered.
        case requestEndedInsideMessage
    }

    enum ResetCode: Equatable {
        /// The call was ended on purpose (a response cut mid-message).
        case cancel
        /// The transport could not send what the call needed (a header block over the limit).
        case internalError
    }

    /// What the handler has queued, as the connection found it when woken.
    struct QueuedResponse: Equatable {
        var headers = false
        var messages = false
        var status = false
    }

    /// What the response queue's abort did (``GRPCResponseQueue/AbortOutcome``).
    enum AbortOutcome: Equatable {
        /// The queue was closed already.
        case alreadyClosed
        /// The status replaced whatever was queued.
        case statusQueued
        /// Part of a message already went out: no trailers can follow it.
        case midMessage
    }

    enum Action: Equatable {
        case nothing
        /// Deframe the DATA and hand its messages to the handler.
        case deliverToHandler
        /// Consume the DATA for flow control and drop it.
        case discardData
        /// The request is complete: end the handler's request stream, or run a synchronous handler.
        case finishRequests
        /// End the call: abort the response queue with this failure's status, then report ``failed(_:)``.
        case fail(Failure)
        /// Look at the response queue again: it holds a status now.
        case serviceResponse
        /// Submit response headers with a data provider (messages, then trailers, follow).
        case submitResponseHeaders
        /// Submit the status in the response headers, with END_STREAM (a call with no messages).
        case submitTrailersOnly
        /// Wake the deferred data provider: more messages or the status are queued.
        case resumeData
        /// Submit the trailers after the last DATA.
        case submitTrailers
        /// gRPC-Web: write the trailers frame after the last message and end the body with it.
        case writeTrailersFrame
        case resetStream(ResetCode)
        /// The stream is gone: stop the handler and fail its pending writes.
        case cancelHandler
    }

    private(set) var state = State.idle
    /// See ``RPCHandler/endsAtShutdown``.
    let endsAtShutdown: Bool
    /// gRPC-Web and Connect streams: the status goes in the body, as its last frame, instead of in trailers.
    let trailersInBody: Bool
    /// False for a Connect stream: a status with nothing before it still gets response headers and a body (its
    /// end-of-stream message), never Trailers-Only.
    let allowsTrailersOnly: Bool

    init(endsAtShutdown: Bool = false, trailersInBody: Bool = false, allowsTrailersOnly: Bool = true) {
        self.endsAtShutdown = endsAtShutdown
        self.trailersInBody = trailersInBody
        self.allowsTrailersOnly = allowsTrailersOnly
    }

    /// True until the status went out or the stream was reset or closed: the call can still end with a status.
    var isActive: Bool {
        switch state {
        case .idle, .open, .requestClosed, .responding, .respondingRequestClosed: true
        case .statusSubmitted, .reset, .closed: false
        }
    }

    // MARK: Request

    /// The call passed every check and its handler starts.
    mutating func headersAccepted() -> Action {
        guard state == .idle else { return resetForInternalError() }
        state = .open
        return .nothing
    }

    /// A DATA frame arrived. Once per frame: a switch and nothing else.
    func dataReceived() -> Action {
        switch state {
        case .open, .responding: .deliverToHandler
        default: .discardData
        }
    }

    /// END_STREAM arrived (on DATA or on request trailers).
    mutating func requestEnded(insideMessage: Bool) -> Action {
        switch state {
        case .open, .responding:
            if insideMessage { return .fail(.requestEndedInsideMessage) }
            state = state == .open ? .requestClosed : .respondingRequestClosed
            return .finishRequests
        case .idle:
            return resetForInternalError()
        case .requestClosed, .respondingRequestClosed, .statusSubmitted, .reset, .closed:
            return .nothing
        }
    }

    // MARK: Response

    /// The handler queued something (or the transport queued a status) and the connection looked at the queue.
    mutating func responseQueued(_ queued: QueuedResponse) -> Action {
        switch state {
        case .open, .requestClosed:
            let requestClosed = state == .requestClosed
            if queued.status, !queued.messages, !queued.headers, allowsTrailersOnly {
                state = .statusSubmitted
                return .submitTrailersOnly
            }
            guard queued.headers || queued.messages || queued.status else { return .nothing }
            state = requestClosed ? .respondingRequestClosed : .responding
            return .submitResponseHeaders
        case .responding, .respondingRequestClosed:
            return .resumeData
        case .idle:
            return resetForInternalError()
        case .statusSubmitted, .reset, .closed:
            return .nothing
        }
    }

    /// The data provider sent every queued message and found the status.
    mutating func statusReady() -> Action {
        switch state {
        case .responding, .respondingRequestClosed:
            state = .statusSubmitted
            return trailersInBody ? .writeTrailersFrame : .submitTrailers
        case .idle, .open, .requestClosed:
            // No data provider exists before response headers.
            return resetForInternalError()
        case .statusSubmitted, .reset, .closed:
            return .nothing
        }
    }

    /// nghttp2 refused or dropped a header block of this stream (headers or trailers, typically over the send
    /// limit). The stream would otherwise stay open with nothing left to send: reset it so the client sees an end.
    mutating func headersRefused() -> Action {
        resetForInternalError()
    }

    // MARK: Ending the call

    /// The transport aborted the response queue with a status of its own (a failure, a bad request).
    mutating func failed(_ outcome: AbortOutcome) -> Action {
        guard isActive else { return .nothing }
        switch outcome {
        case .midMessage:
            state = .reset
            return .resetStream(.cancel)
        case .alreadyClosed, .statusQueued:
            switch state {
            case .idle, .open: state = .requestClosed
            case .responding: state = .respondingRequestClosed
            default: break
            }
            return outcome == .statusQueued ? .serviceResponse : .nothing
        }
    }

    func deadlineExpired() -> Action {
        isActive ? .fail(.deadlineExceeded) : .nothing
    }

    /// Graceful shutdown began on the connection: only calls that would never end on their own end now.
    func shutdownBegan() -> Action {
        isActive && endsAtShutdown ? .fail(.shuttingDown) : .nothing
    }

    func shutdownGraceEnded() -> Action {
        isActive ? .fail(.shutdownGraceEnded) : .nothing
    }

    /// The stream closed (it ended, either side reset it, or the connection died).
    mutating func streamClosed() -> Action {
        guard state != .closed else { return .nothing }
        state = .closed
        return .cancelHandler
    }

    /// For what could not be sent and for events the state cannot have: end the stream visibly (the client sees
    /// INTERNAL) rather than leave the call hanging.
    private mutating func resetForInternalError() -> Action {
        switch state {
        case .reset, .closed:
            return .nothing
        default:
            state = .reset
            return .resetStream(.internalError)
        }
    }
}
