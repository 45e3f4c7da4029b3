import RPCCore
import Testing

@testable import HTTP2Transport

@Suite("gRPC server stream state machine")
struct GRPCServerStreamStateMachineTests {
    typealias Machine = GRPCServerStreamStateMachine
    typealias State = Machine.State

    static let allStates: [State] = [
        .idle, .open, .requestClosed, .responding, .respondingRequestClosed, .statusSubmitted, .reset, .closed,
    ]
    /// The states in which the call can still end with a status.
    static let activeStates: [State] = [.idle, .open, .requestClosed, .responding, .respondingRequestClosed]
    static let endedStates: [State] = [.statusSubmitted, .reset, .closed]

    static let headers = Machine.QueuedResponse(headers: true)
    static let message = Machine.QueuedResponse(messages: true)
    static let statusOnly = Machine.QueuedResponse(status: true)

    /// A machine driven into `state` through the events that lead there on a real stream.
    static func machine(in state: State, endsAtShutdown: Bool = false, trailersInBody: Bool = false) -> Machine {
        var machine = Machine(endsAtShutdown: endsAtShutdown, trailersInBody: trailersInBody)
        func step(_ action: Machine.Action) { _ = action }
        switch state {
        case .idle:
            break
        case .open:
            step(machine.headersAccepted())
        case .requestClosed:
            step(machine.headersAccepted())
            step(machine.requestEnded(insideMessage: false))
        case .responding:
            step(machine.headersAccepted())
            step(machine.responseQueued(headers))
        case .respondingRequestClosed:
            step(machine.headersAccepted())
            step(machine.responseQueued(headers))
            step(machine.requestEnded(insideMessage: false))
        case .statusSubmitted:
            step(machine.headersAccepted())
            step(machine.responseQueued(message))
            step(machine.statusReady())
        case .reset:
            step(machine.headersAccepted())
            step(machine.headersRefused())
        case .closed:
            step(machine.headersAccepted())
            step(machine.streamClosed())
        }
        #expect(machine.state == state)
        return machine
    }

    // MARK: Request

    @Test func acceptedHeadersOpenTheCall() {
        var machine = Machine()
        #expect(machine.headersAccepted() == .nothing)
        #expect(machine.state == .open)
    }

    @Test("headers accepted twice reset the stream", arguments: allStates.filter { $0 != .idle })
    func headersAcceptedOutOfOrder(state: State) {
        var machine = Self.machine(in: state)
        let expected: Machine.Action = state == .reset || state == .closed ? .nothing : .resetStream(.internalError)
        #expect(machine.headersAccepted() == expected)
        #expect(machine.state == (state == .closed ? .closed : .reset))
    }

    @Test("DATA is delivered while the request is open", arguments: allStates)
    func data(state: State) {
        let machine = Self.machine(in: state)
        let delivered = state == .open || state == .responding
        #expect(machine.dataReceived() == (delivered ? .deliverToHandler : .discardData))
        #expect(machine.state == state)
    }

    @Test func requestEndFinishesTheRequestStream() {
        var open = Self.machine(in: .open)
        #expect(open.requestEnded(insideMessage: false) == .finishRequests)
        #expect(open.state == .requestClosed)

        var responding = Self.machine(in: .responding)
        #expect(responding.requestEnded(insideMessage: false) == .finishRequests)
        #expect(responding.state == .respondingRequestClosed)
    }

    @Test("a request that ends inside a message fails the call", arguments: [State.open, .responding])
    func requestEndInsideMessage(state: State) {
        var machine = Self.machine(in: state)
        #expect(machine.requestEnded(insideMessage: true) == .fail(.requestEndedInsideMessage))
        // The failure's own transition (after the queue is aborted) closes the request side.
        #expect(machine.state == state)
    }

    @Test("a second request end, or one after the call ended, does nothing",
        arguments: [State.requestClosed, .respondingRequestClosed, .statusSubmitted, .reset, .closed])
    func lateRequestEnd(state: State) {
        var machine = Self.machine(in: state)
        #expect(machine.requestEnded(insideMessage: false) == .nothing)
        #expect(machine.state == state)
    }

    @Test func requestEndBeforeAcceptanceResets() {
        var machine = Machine()
        #expect(machine.requestEnded(insideMessage: false) == .resetStream(.internalError))
        #expect(machine.state == .reset)
    }

    // MARK: Response

    @Test("a status before any message or header goes out as Trailers-Only", arguments: [State.open, .requestClosed])
    func trailersOnly(state: State) {
        var machine = Self.machine(in: state)
        #expect(machine.responseQueued(Self.statusOnly) == .submitTrailersOnly)
        #expect(machine.state == .statusSubmitted)
    }

    @Test("headers, messages, or a status after headers start a normal response",
        arguments: [State.open, .requestClosed], [
            GRPCServerStreamStateMachine.QueuedResponse(headers: true),
            GRPCServerStreamStateMachine.QueuedResponse(messages: true),
            GRPCServerStreamStateMachine.QueuedResponse(messages: true, status: true),
            GRPCServerStreamStateMachine.QueuedResponse(headers: true, status: true),
        ])
    func responseHeaders(state: State, queued: Machine.QueuedResponse) {
        var machine = Self.machine(in: state)
        #expect(machine.responseQueued(queued) == .submitResponseHeaders)
        #expect(machine.state == (state == .open ? .responding : .respondingRequestClosed))
    }

    @Test func anEmptyQueueChangesNothing() {
        var machine = Self.machine(in: .open)
        #expect(machine.responseQueued(.init()) == .nothing)
        #expect(machine.state == .open)
    }

    @Test("more output on a started response resumes the data provider",
        arguments: [State.responding, .respondingRequestClosed])
    func resume(state: State) {
        var machine = Self.machine(in: state)
        #expect(machine.responseQueued(Self.message) == .resumeData)
        #expect(machine.responseQueued(Self.statusOnly) == .resumeData)
        #expect(machine.state == state)
    }

    @Test("a wake after the call ended does nothing", arguments: endedStates)
    func lateWake(state: State) {
        var machine = Self.machine(in: state)
        #expect(machine.responseQueued(Self.statusOnly) == .nothing)
        #expect(machine.state == state)
    }

    @Test func aWakeBeforeAcceptanceResets() {
        var machine = Machine()
        #expect(machine.responseQueued(Self.statusOnly) == .resetStream(.internalError))
        #expect(machine.state == .reset)
    }

    @Test("the status after the last message goes out as trailers",
        arguments: [State.responding, .respondingRequestClosed])
    func trailers(state: State) {
        var machine = Self.machine(in: state)
        #expect(machine.statusReady() == .submitTrailers)
        #expect(machine.state == .statusSubmitted)
        #expect(!machine.isActive)
    }

    @Test("gRPC-Web: the status after the last message goes out as the body's trailers frame",
        arguments: [State.responding, .respondingRequestClosed])
    func webTrailersFrame(state: State) {
        var machine = Self.machine(in: state, trailersInBody: true)
        #expect(machine.statusReady() == .writeTrailersFrame)
        #expect(machine.state == .statusSubmitted)
        #expect(!machine.isActive)
    }

    @Test("gRPC-Web: a status with nothing before it is Trailers-Only, as in gRPC", arguments: [State.open, .requestClosed])
    func webTrailersOnly(state: State) {
        var machine = Self.machine(in: state, trailersInBody: true)
        #expect(machine.responseQueued(Self.statusOnly) == .submitTrailersOnly)
        #expect(machine.state == .statusSubmitted)
    }

    @Test("gRPC-Web: a status with no data provider still resets", arguments: [State.idle, .open, .requestClosed])
    func webStatusWithoutResponse(state: State) {
        var machine = Self.machine(in: state, trailersInBody: true)
        #expect(machine.statusReady() == .resetStream(.internalError))
        #expect(machine.state == .reset)
    }

    @Test("gRPC-Web: a status read again after the trailers frame does nothing", arguments: endedStates)
    func webLateStatus(state: State) {
        var machine = Self.machine(in: state, trailersInBody: true)
        #expect(machine.statusReady() == .nothing)
        #expect(machine.state == state)
    }

    @Test("a status with no data provider resets the stream", arguments: [State.idle, .open, .requestClosed])
    func statusWithoutResponse(state: State) {
        var machine = Self.machine(in: state)
        #expect(machine.statusReady() == .resetStream(.internalError))
        #expect(machine.state == .reset)
    }

    @Test("a status read again after the trailers does nothing", arguments: endedStates)
    func lateStatus(state: State) {
        var machine = Self.machine(in: state)
        #expect(machine.statusReady() == .nothing)
        #expect(machine.state == state)
    }

    /// The Python suite's trailers over the send limit: nghttp2 drops the frame, and the call must not hang.
    @Test("refused trailers or headers reset the stream instead of hanging",
        arguments: [State.idle, .open, .requestClosed, .responding, .respondingRequestClosed, .statusSubmitted])
    func headersRefused(state: State) {
        var machine = Self.machine(in: state)
        #expect(machine.headersRefused() == .resetStream(.internalError))
        #expect(machine.state == .reset)
        #expect(machine.headersRefused() == .nothing)
    }

    @Test func refusedHeadersAfterCloseDoNothing() {
        var machine = Self.machine(in: .closed)
        #expect(machine.headersRefused() == .nothing)
        #expect(machine.state == .closed)
    }

    // MARK: Ending the call

    @Test("a transport failure queues its status and closes the request side", arguments: activeStates)
    func failure(state: State) {
        var machine = Self.machine(in: state)
        #expect(machine.failed(.statusQueued) == .serviceResponse)
        let expected: State =
            switch state {
            case .idle, .open, .requestClosed: .requestClosed
            default: .respondingRequestClosed
            }
        #expect(machine.state == expected)
    }

    /// A request rejected before its handler ran (unknown method, shutdown): its status goes out as Trailers-Only.
    @Test func rejectedRequestGetsTrailersOnly() {
        var machine = Machine()
        #expect(machine.failed(.statusQueued) == .serviceResponse)
        #expect(machine.responseQueued(Self.statusOnly) == .submitTrailersOnly)
        #expect(machine.state == .statusSubmitted)
    }

    @Test("a failure mid-message resets the stream with CANCEL", arguments: [State.responding, .respondingRequestClosed])
    func failureMidMessage(state: State) {
        var machine = Self.machine(in: state)
        #expect(machine.failed(.midMessage) == .resetStream(.cancel))
        #expect(machine.state == .reset)
    }

    @Test func failureOnAClosedQueueOnlyClosesTheRequestSide() {
        var machine = Self.machine(in: .open)
        #expect(machine.failed(.alreadyClosed) == .nothing)
        #expect(machine.state == .requestClosed)
    }

    @Test("a failure after the call ended does nothing", arguments: endedStates)
    func lateFailure(state: State) {
        var machine = Self.machine(in: state)
        #expect(machine.failed(.statusQueued) == .nothing)
        #expect(machine.failed(.midMessage) == .nothing)
        #expect(machine.state == state)
    }

    @Test("the deadline fails a call still running", arguments: activeStates)
    func deadline(state: State) {
        let machine = Self.machine(in: state)
        #expect(machine.deadlineExpired() == .fail(.deadlineExceeded))
    }

    @Test("the deadline after the status went out does nothing", arguments: endedStates)
    func lateDeadline(state: State) {
        let machine = Self.machine(in: state)
        #expect(machine.deadlineExpired() == .nothing)
        #expect(machine.state == state)
    }

    @Test("shutdown ends a call that would never end on its own with UNAVAILABLE", arguments: activeStates)
    func shutdownEndsSubscriptions(state: State) {
        let subscription = Self.machine(in: state, endsAtShutdown: true)
        #expect(subscription.shutdownBegan() == .fail(.shuttingDown))
        #expect(Machine.Failure.shuttingDown.error.code == .unavailable)

        let ordinary = Self.machine(in: state)
        #expect(ordinary.shutdownBegan() == .nothing)
    }

    @Test("shutdown leaves an ended subscription alone", arguments: endedStates)
    func shutdownAfterEnd(state: State) {
        let machine = Self.machine(in: state, endsAtShutdown: true)
        #expect(machine.shutdownBegan() == .nothing)
    }

    @Test("the end of the grace period fails every call still running", arguments: allStates)
    func graceEnded(state: State) {
        let machine = Self.machine(in: state)
        let active = Self.activeStates.contains(state)
        #expect(machine.shutdownGraceEnded() == (active ? .fail(.shutdownGraceEnded) : .nothing))
        #expect(Machine.Failure.shutdownGraceEnded.error.code == .unavailable)
    }

    /// A client RST_STREAM mid-response: the handler must stop, not run on into a stream that is gone.
    @Test("closing the stream cancels the handler once", arguments: allStates.filter { $0 != .closed })
    func streamClosed(state: State) {
        var machine = Self.machine(in: state)
        #expect(machine.streamClosed() == .cancelHandler)
        #expect(machine.state == .closed)
        #expect(machine.streamClosed() == .nothing)
        #expect(machine.dataReceived() == .discardData)
        #expect(machine.deadlineExpired() == .nothing)
    }

    // MARK: Whole calls

    @Test func unaryCall() {
        var machine = Machine()
        #expect(machine.headersAccepted() == .nothing)
        #expect(machine.dataReceived() == .deliverToHandler)
        #expect(machine.requestEnded(insideMessage: false) == .finishRequests)
        #expect(machine.responseQueued(.init(messages: true, status: true)) == .submitResponseHeaders)
        #expect(machine.statusReady() == .submitTrailers)
        #expect(machine.deadlineExpired() == .nothing)
        #expect(machine.streamClosed() == .cancelHandler)
    }

    @Test func serverStreamingCallCutByTheDeadline() {
        var machine = Self.machine(in: .respondingRequestClosed)
        #expect(machine.responseQueued(Self.message) == .resumeData)
        #expect(machine.deadlineExpired() == .fail(.deadlineExceeded))
        #expect(machine.failed(.statusQueued) == .serviceResponse)
        #expect(machine.responseQueued(Self.statusOnly) == .resumeData)
        #expect(machine.statusReady() == .submitTrailers)
        #expect(machine.state == .statusSubmitted)
    }
}
