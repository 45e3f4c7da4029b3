/// The life of one server HTTP/2 connection apart from its streams: keepalive, the policing of client pings, the
/// request-head deadline, and graceful shutdown.
///
/// Pure: it reads no clock (every event carries `now`) and does no I/O. Each event returns the actions the
/// connection must perform, in order. Events are rare (pings, timers, shutdown), so actions come as an array;
/// the events on the hot path (``bytesReceived(at:)``, a header block's start and end, ``readProcessed()``) return
/// nothing or one action.
struct ServerConnectionManagementStateMachine {
    struct Policy {
        /// A connection quiet for this long gets a PING.
        var keepaliveInterval: Duration
        /// A keepalive PING not acknowledged within this closes the connection.
        var keepaliveTimeout: Duration
        /// Clients must not ping faster than this while no streams are open (gRPC's keepalive enforcement).
        var minClientPingInterval: Duration
        /// Pings too early are tolerated this many times; the next one ends the connection.
        var maxPingStrikes = 2
        /// The longest the final GOAWAY waits for the acknowledgement of the shutdown PING.
        var finalGoawayDelay: Duration = .seconds(1)
        /// How long calls may run after shutdown began before they are aborted.
        var shutdownGracePeriod: Duration
        /// How long a closing connection may take to flush its last frames before it is cut off.
        var closeFlushTimeout: Duration = .seconds(5)
        /// A header block (HEADERS and its CONTINUATIONs) must arrive whole within this long of the read that began
        /// it. Traffic does not extend it, unlike keepalive: a client trickling a head byte by byte is never idle.
        var requestHeadTimeout: Duration = .seconds(10)
    }

    enum Phase: Equatable {
        /// Accepting new calls.
        case serving
        /// The shutdown notice (GOAWAY with the maximum stream id) and a PING went out; the final GOAWAY waits for
        /// the PING's acknowledgement, which proves the client has seen the notice, or for a timer.
        case draining
        /// The final GOAWAY went out: the connection ends when its last stream does.
        case drained
        /// The connection ends as soon as what is queued has been written.
        case closing
        /// The socket is gone; every event is ignored.
        case closed
    }

    enum Timer: Hashable {
        /// Time to look at how long the connection has been quiet.
        case keepalive
        /// A keepalive PING had until now to be acknowledged.
        case keepaliveAck
        /// The shutdown PING had until now to be acknowledged.
        case finalGoaway
        /// The shutdown grace period is over.
        case shutdownGrace
        /// A connection closing after its GOAWAY had until now to flush it: a peer that stops reading must not
        /// hold the socket open.
        case closeDeadline
        /// The client's preface and first SETTINGS, or the header block being received, had until now to arrive.
        case requestHead
    }

    enum GoawayCode: Equatable {
        case noError
        case enhanceYourCalm
    }

    enum Action: Equatable {
        case sendPing
        /// The first GOAWAY of a graceful shutdown: the maximum stream id, so requests in flight are still taken.
        case sendShutdownNotice
        case sendGoaway(GoawayCode, debugData: String)
        /// Call `timerFired(_:now:)` with this timer at this instant. Replaces an earlier timer of the same kind.
        case scheduleTimer(Timer, at: ContinuousClock.Instant)
        /// Calls whose handler never ends on its own (``RPCHandler/endsAtShutdown``) end now with UNAVAILABLE.
        case endCallsThatEndAtShutdown
        /// Every call still running ends now with UNAVAILABLE.
        case abortCalls
        /// Close once the output queued so far is written (the peer learns why from a GOAWAY).
        case closeAfterFlush
        /// Close at once; `reason` is for the log.
        case closeNow(reason: String)
        /// A client took longer than the head timeout over a request head (or its preface): count it.
        case countRequestHeadTimeout
    }

    private let policy: Policy
    private(set) var phase = Phase.serving
    private var lastReceived: ContinuousClock.Instant
    /// When the oldest unacknowledged keepalive PING must have been acknowledged.
    private var keepaliveAckDue: ContinuousClock.Instant?
    private var lastClientPing: ContinuousClock.Instant?
    private(set) var pingStrikes = 0
    /// The preface, or a header block, is still arriving.
    private var headPending = true
    /// When the pending head must be complete, once ``headDueKnown``. It is worked out only for a head that spans
    /// reads (the instant arithmetic and copies would otherwise cost every request about 300 instructions).
    private var headDue: ContinuousClock.Instant
    private var headDueKnown = true
    /// Whether a ``Timer/requestHead`` timer is pending. It is left to fire after its head completes (cancelling
    /// it for every request would cost more than one idle firing per timeout): it then finds nothing due, or
    /// re-arms for a later head.
    private var headTimerPending = false

    /// Starts serving; the caller schedules the timers ``startActions`` names. The client's preface and first
    /// SETTINGS are due by `prefaceDue` (the connection's accept plus the head timeout: the TLS handshake counts).
    init(policy: Policy, now: ContinuousClock.Instant, prefaceDue: ContinuousClock.Instant) {
        self.policy = policy
        self.lastReceived = now
        self.headDue = prefaceDue
        self.headTimerPending = true
    }

    /// What a new connection does first.
    var startActions: [Action] {
        [
            .scheduleTimer(.keepalive, at: lastReceived + policy.keepaliveInterval),
            .scheduleTimer(.requestHead, at: headDue),
        ]
    }

    /// New calls are refused (UNAVAILABLE) once shutdown has begun or the connection is closing.
    var acceptsNewCalls: Bool { phase == .serving }

    /// True once the connection should close as soon as its output is written.
    var isClosing: Bool { phase == .closing }

    /// True once the final GOAWAY went out: no new stream can arrive, so the last stream's end ends the connection.
    var sentFinalGoaway: Bool { phase == .drained }

    // MARK: Events

    /// Bytes arrived: the connection is not quiet. Once per socket read, so it only records the instant.
    mutating func bytesReceived(at now: ContinuousClock.Instant) {
        lastReceived = now
    }

    /// A request's HEADERS arrived. As gRPC servers do, real traffic forgives earlier early pings.
    mutating func requestHeadersReceived() {
        pingStrikes = 0
    }

    /// The client's first SETTINGS arrived: its preface is complete.
    mutating func prefaceReceived() {
        headPending = false
    }

    /// A HEADERS frame began a header block (a request head or trailers), during the read last reported by
    /// ``bytesReceived(at:)``.
    mutating func headerBlockStarted() {
        if !headPending {
            headPending = true
            headDueKnown = false
        }
    }

    /// The header block is complete, or refused (nghttp2 then skips the rest of it without reporting its end).
    mutating func headerBlockEnded() {
        headPending = false
    }

    /// A read's frames have all been handled: a head still incomplete needs its timer.
    mutating func readProcessed() -> Action? {
        guard headPending else { return nil }
        if !headDueKnown {
            // This read began the head (the first read to end after it began): its deadline runs from then.
            headDue = lastReceived + policy.requestHeadTimeout
            headDueKnown = true
        }
        guard !headTimerPending else { return nil }
        headTimerPending = true
        return .scheduleTimer(.requestHead, at: headDue)
    }

    /// A PING (not an ack) from the client. `hasOpenStreams`: pings are only policed on a connection without calls,
    /// where they can only be keepalive.
    mutating func pingReceived(at now: ContinuousClock.Instant, hasOpenStreams: Bool) -> [Action] {
        switch phase {
        case .closing, .closed:
            return []
        case .serving, .draining, .drained:
            break
        }
        defer { lastClientPing = now }
        guard !hasOpenStreams, let last = lastClientPing, last.duration(to: now) < policy.minClientPingInterval else {
            return []
        }
        pingStrikes += 1
        guard pingStrikes > policy.maxPingStrikes else { return [] }
        phase = .closing
        return [
            .sendGoaway(.enhanceYourCalm, debugData: "too_many_pings"), .closeAfterFlush,
            .scheduleTimer(.closeDeadline, at: now + policy.closeFlushTimeout),
        ]
    }

    /// A PING ack. PINGs carry no payload here, so an ack answers the keepalive PING and the shutdown PING alike.
    mutating func pingAckReceived() -> [Action] {
        keepaliveAckDue = nil
        return phase == .draining ? sendFinalGoaway() : []
    }

    /// The server is shutting down: notice and PING now, the final GOAWAY on the PING's ack or after
    /// `finalGoawayDelay`, and calls still running after the grace period are aborted.
    mutating func gracefulShutdownBegan(at now: ContinuousClock.Instant) -> [Action] {
        guard phase == .serving else { return [] }
        phase = .draining
        return [
            .sendShutdownNotice,
            .sendPing,
            .scheduleTimer(.finalGoaway, at: now + policy.finalGoawayDelay),
            .scheduleTimer(.shutdownGrace, at: now + policy.shutdownGracePeriod),
            .endCallsThatEndAtShutdown,
        ]
    }

    mutating func timerFired(_ timer: Timer, at now: ContinuousClock.Instant) -> [Action] {
        guard phase != .closed else { return [] }
        switch timer {
        case .keepalive:
            return phase == .closing ? [] : keepaliveDue(now)
        case .keepaliveAck:
            guard let due = keepaliveAckDue, due <= now, phase != .closing else { return [] }
            phase = .closed
            return [.closeNow(reason: "keepalive ping unanswered")]
        case .finalGoaway:
            return phase == .draining ? sendFinalGoaway() : []
        case .shutdownGrace:
            guard phase == .draining || phase == .drained else { return [] }
            phase = .closing
            return [.abortCalls, .closeAfterFlush, .scheduleTimer(.closeDeadline, at: now + policy.closeFlushTimeout)]
        case .closeDeadline:
            guard phase == .closing else { return [] }
            phase = .closed
            return [.closeNow(reason: "peer did not take the connection's last frames in time")]
        case .requestHead:
            return requestHeadTimerFired(now)
        }
    }

    /// The socket closed; the connection cancels its timers.
    mutating func connectionClosed() {
        phase = .closed
    }

    // MARK: Transitions

    private mutating func requestHeadTimerFired(_ now: ContinuousClock.Instant) -> [Action] {
        headTimerPending = false
        // A pending head has passed the end of a read, so its deadline is known.
        guard headPending, headDueKnown, phase != .closing else { return [] }
        let due = headDue
        guard due <= now else {
            // The head that armed this timer completed; a later one is still arriving.
            headTimerPending = true
            return [.scheduleTimer(.requestHead, at: due)]
        }
        phase = .closing
        return [
            .sendGoaway(.enhanceYourCalm, debugData: "request head timeout"), .closeAfterFlush,
            .scheduleTimer(.closeDeadline, at: now + policy.closeFlushTimeout), .countRequestHeadTimeout,
        ]
    }

    private mutating func sendFinalGoaway() -> [Action] {
        phase = .drained
        return [.sendGoaway(.noError, debugData: "")]
    }

    private mutating func keepaliveDue(_ now: ContinuousClock.Instant) -> [Action] {
        let quietUntil = lastReceived + policy.keepaliveInterval
        // Traffic since the timer was set postpones the PING to an interval after it.
        guard quietUntil <= now else { return [.scheduleTimer(.keepalive, at: quietUntil)] }
        // A PING still unanswered keeps its deadline: a later one does not buy the client more time.
        let ackDue = keepaliveAckDue ?? now + policy.keepaliveTimeout
        keepaliveAckDue = ackDue
        // The next PING is an interval after this one, not after the last bytes received.
        return [
            .sendPing,
            .scheduleTimer(.keepaliveAck, at: ackDue),
            .scheduleTimer(.keepalive, at: now + policy.keepaliveInterval),
        ]
    }
}
