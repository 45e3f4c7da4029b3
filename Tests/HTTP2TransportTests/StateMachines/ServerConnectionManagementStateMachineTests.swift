import Testing

@testable import HTTP2Transport

@Suite("Server connection management state machine")
struct ServerConnectionManagementStateMachineTests {
    typealias Machine = ServerConnectionManagementStateMachine

    static let start = ContinuousClock.now
    static let policy = Machine.Policy(
        keepaliveInterval: .seconds(60), keepaliveTimeout: .seconds(20), minClientPingInterval: .seconds(300),
        shutdownGracePeriod: .seconds(10))

    static func at(_ seconds: Double) -> ContinuousClock.Instant { start + .milliseconds(Int(seconds * 1000)) }

    /// A connection accepted at `start`: its preface is due 10 s later (the policy's default head timeout).
    static func machine() -> Machine { Machine(policy: policy, now: start, prefaceDue: at(10)) }

    /// The answer to the ping that is one too many, at 4 s: GOAWAY, close once flushed, and cut off 5 s later.
    static let tooManyPings: [Machine.Action] = [
        .sendGoaway(.enhanceYourCalm, debugData: "too_many_pings"), .closeAfterFlush,
        .scheduleTimer(.closeDeadline, at: at(9)),
    ]

    // MARK: Keepalive

    @Test func startSchedulesTheFirstKeepalive() {
        let machine = Self.machine()
        #expect(
            machine.startActions == [.scheduleTimer(.keepalive, at: Self.at(60)), .scheduleTimer(.requestHead, at: Self.at(10))])
        #expect(machine.phase == .serving)
        #expect(machine.acceptsNewCalls)
    }

    @Test func aQuietConnectionIsPinged() {
        var machine = Self.machine()
        #expect(
            machine.timerFired(.keepalive, at: Self.at(60)) == [
                .sendPing, .scheduleTimer(.keepaliveAck, at: Self.at(80)), .scheduleTimer(.keepalive, at: Self.at(120)),
            ])
    }

    @Test func trafficPostponesThePing() {
        var machine = Self.machine()
        machine.bytesReceived(at: Self.at(30))
        #expect(machine.timerFired(.keepalive, at: Self.at(60)) == [.scheduleTimer(.keepalive, at: Self.at(90))])
    }

    @Test func anAckWithinTheTimeoutKeepsTheConnection() {
        var machine = Self.machine()
        _ = machine.timerFired(.keepalive, at: Self.at(60))
        #expect(machine.pingAckReceived() == [])
        #expect(machine.timerFired(.keepaliveAck, at: Self.at(80)) == [])
        #expect(machine.phase == .serving)
    }

    @Test func aMissingAckClosesTheConnection() {
        var machine = Self.machine()
        _ = machine.timerFired(.keepalive, at: Self.at(60))
        #expect(machine.timerFired(.keepaliveAck, at: Self.at(80)) == [.closeNow(reason: "keepalive ping unanswered")])
        #expect(machine.phase == .closed)
        #expect(machine.timerFired(.keepalive, at: Self.at(120)) == [])
    }

    @Test func aLaterPingDoesNotExtendTheAckDeadline() {
        let policy = Machine.Policy(
            keepaliveInterval: .seconds(10), keepaliveTimeout: .seconds(15), minClientPingInterval: .seconds(300),
            shutdownGracePeriod: .seconds(10))
        var machine = Machine(policy: policy, now: Self.start, prefaceDue: Self.at(10))
        _ = machine.timerFired(.keepalive, at: Self.at(10))
        #expect(
            machine.timerFired(.keepalive, at: Self.at(20)) == [
                .sendPing, .scheduleTimer(.keepaliveAck, at: Self.at(25)), .scheduleTimer(.keepalive, at: Self.at(30)),
            ])
        #expect(machine.timerFired(.keepaliveAck, at: Self.at(25)) == [.closeNow(reason: "keepalive ping unanswered")])
    }

    @Test func anAckTimerWithNoPingOutstandingDoesNothing() {
        var machine = Self.machine()
        #expect(machine.timerFired(.keepaliveAck, at: Self.at(80)) == [])
    }

    // MARK: Ping policing

    @Test func thirdEarlyPingWithoutStreamsGetsTooManyPings() {
        var machine = Self.machine()
        #expect(machine.pingReceived(at: Self.at(1), hasOpenStreams: false) == [])
        #expect(machine.pingReceived(at: Self.at(2), hasOpenStreams: false) == [])
        #expect(machine.pingStrikes == 1)
        #expect(machine.pingReceived(at: Self.at(3), hasOpenStreams: false) == [])
        #expect(machine.pingStrikes == 2)
        #expect(machine.pingReceived(at: Self.at(4), hasOpenStreams: false) == Self.tooManyPings)
        #expect(machine.isClosing)
        #expect(!machine.acceptsNewCalls)
        // Once closing, further pings are not answered with another GOAWAY.
        #expect(machine.pingReceived(at: Self.at(5), hasOpenStreams: false) == [])
    }

    @Test func pingsDuringCallsAreNotStrikes() {
        var machine = Self.machine()
        for second in 1...10 {
            #expect(machine.pingReceived(at: Self.at(Double(second)), hasOpenStreams: true) == [])
        }
        #expect(machine.pingStrikes == 0)
    }

    @Test func requestHeadersForgiveStrikes() {
        var machine = Self.machine()
        _ = machine.pingReceived(at: Self.at(1), hasOpenStreams: false)
        _ = machine.pingReceived(at: Self.at(2), hasOpenStreams: false)
        _ = machine.pingReceived(at: Self.at(3), hasOpenStreams: false)
        #expect(machine.pingStrikes == 2)
        machine.requestHeadersReceived()
        #expect(machine.pingStrikes == 0)
        #expect(machine.pingReceived(at: Self.at(4), hasOpenStreams: false) == [])
        #expect(machine.pingReceived(at: Self.at(5), hasOpenStreams: false) == [])
        #expect(machine.pingStrikes == 2)
    }

    @Test func pingsAtTheAllowedIntervalAreNotStrikes() {
        var machine = Self.machine()
        for minutes in 0..<5 {
            #expect(machine.pingReceived(at: Self.at(Double(minutes * 300)), hasOpenStreams: false) == [])
        }
        #expect(machine.pingStrikes == 0)
    }

    @Test func pingsAreStillPolicedWhileDraining() {
        var machine = Self.machine()
        _ = machine.gracefulShutdownBegan(at: Self.at(0))
        for second in 1...3 { _ = machine.pingReceived(at: Self.at(Double(second)), hasOpenStreams: false) }
        #expect(machine.pingReceived(at: Self.at(4), hasOpenStreams: false) == Self.tooManyPings)
    }

    // MARK: Graceful shutdown

    static let shutdownActions: [Machine.Action] = [
        .sendShutdownNotice, .sendPing, .scheduleTimer(.finalGoaway, at: at(1)), .scheduleTimer(.shutdownGrace, at: at(10)),
        .endCallsThatEndAtShutdown,
    ]

    @Test func shutdownSendsTheNoticeAndAPing() {
        var machine = Self.machine()
        #expect(machine.gracefulShutdownBegan(at: Self.at(0)) == Self.shutdownActions)
        #expect(machine.phase == .draining)
        #expect(!machine.acceptsNewCalls)
        #expect(machine.gracefulShutdownBegan(at: Self.at(0.5)) == [])
    }

    @Test func theShutdownPingsAckSendsTheFinalGoawayOnce() {
        var machine = Self.machine()
        _ = machine.gracefulShutdownBegan(at: Self.at(0))
        #expect(machine.pingAckReceived() == [.sendGoaway(.noError, debugData: "")])
        #expect(machine.sentFinalGoaway)
        #expect(machine.pingAckReceived() == [])
        #expect(machine.timerFired(.finalGoaway, at: Self.at(1)) == [])
    }

    @Test func withoutAnAckTheTimerSendsTheFinalGoaway() {
        var machine = Self.machine()
        _ = machine.gracefulShutdownBegan(at: Self.at(0))
        #expect(machine.timerFired(.finalGoaway, at: Self.at(1)) == [.sendGoaway(.noError, debugData: "")])
        #expect(machine.pingAckReceived() == [])
    }

    @Test(arguments: [true, false])
    func theGracePeriodAbortsCallsAndCloses(finalGoawaySent: Bool) {
        var machine = Self.machine()
        _ = machine.gracefulShutdownBegan(at: Self.at(0))
        if finalGoawaySent { _ = machine.pingAckReceived() }
        #expect(
            machine.timerFired(.shutdownGrace, at: Self.at(10))
                == [.abortCalls, .closeAfterFlush, .scheduleTimer(.closeDeadline, at: Self.at(15))])
        #expect(machine.isClosing)
        #expect(machine.timerFired(.shutdownGrace, at: Self.at(10)) == [])
        #expect(machine.timerFired(.keepalive, at: Self.at(60)) == [])
    }

    @Test func shutdownTimersWithoutShutdownDoNothing() {
        var machine = Self.machine()
        #expect(machine.timerFired(.finalGoaway, at: Self.at(1)) == [])
        #expect(machine.timerFired(.shutdownGrace, at: Self.at(10)) == [])
        #expect(machine.phase == .serving)
    }

    @Test func keepaliveGoesOnWhileDraining() {
        var machine = Self.machine()
        _ = machine.gracefulShutdownBegan(at: Self.at(0))
        _ = machine.pingAckReceived()
        #expect(machine.timerFired(.keepalive, at: Self.at(60)).first == .sendPing)
        #expect(machine.timerFired(.keepaliveAck, at: Self.at(80)) == [.closeNow(reason: "keepalive ping unanswered")])
    }

    @Test func shutdownAfterTooManyPingsDoesNothing() {
        var machine = Self.machine()
        for second in 1...4 { _ = machine.pingReceived(at: Self.at(Double(second)), hasOpenStreams: false) }
        #expect(machine.gracefulShutdownBegan(at: Self.at(5)) == [])
    }

    @Test func aClosedConnectionIgnoresEverything() {
        var machine = Self.machine()
        machine.connectionClosed()
        #expect(machine.gracefulShutdownBegan(at: Self.at(0)) == [])
        #expect(machine.pingReceived(at: Self.at(1), hasOpenStreams: false) == [])
        #expect(machine.pingAckReceived() == [])
        for timer in [Machine.Timer.keepalive, .keepaliveAck, .finalGoaway, .shutdownGrace, .closeDeadline] {
            #expect(machine.timerFired(timer, at: Self.at(100)) == [])
        }
    }

    @Test func aClosingConnectionWhosePeerStopsReadingIsCutOff() {
        var machine = Self.machine()
        for second in [1.0, 2, 3] { _ = machine.pingReceived(at: Self.at(second), hasOpenStreams: false) }
        #expect(machine.pingReceived(at: Self.at(4), hasOpenStreams: false) == Self.tooManyPings)
        #expect(machine.phase == .closing)
        // Keepalive timers change nothing while closing; the close deadline ends it.
        #expect(machine.timerFired(.keepalive, at: Self.at(5)) == [])
        #expect(
            machine.timerFired(.closeDeadline, at: Self.at(9))
                == [.closeNow(reason: "peer did not take the connection's last frames in time")])
        #expect(machine.phase == .closed)
        #expect(machine.timerFired(.closeDeadline, at: Self.at(10)) == [])
    }

    @Test func theCloseDeadlineMeansNothingBeforeClosing() {
        var machine = Self.machine()
        #expect(machine.timerFired(.closeDeadline, at: Self.at(1)) == [])
        #expect(machine.phase == .serving)
    }

    // MARK: Request-head deadline

    /// The answer to a head that took too long, at `seconds`: GOAWAY, close once flushed, cut off 5 s later.
    static func headTimedOut(at seconds: Double) -> [Machine.Action] {
        [
            .sendGoaway(.enhanceYourCalm, debugData: "request head timeout"), .closeAfterFlush,
            .scheduleTimer(.closeDeadline, at: at(seconds + 5)), .countRequestHeadTimeout,
        ]
    }

    @Test func aPrefaceNotCompleteByItsDeadlineClosesTheConnection() {
        var machine = Self.machine()
        machine.bytesReceived(at: Self.at(9.9))  // bytes trickling in do not extend it
        #expect(machine.readProcessed() == nil)  // the start actions' timer is still pending
        #expect(machine.timerFired(.requestHead, at: Self.at(10)) == Self.headTimedOut(at: 10))
        #expect(machine.isClosing)
        #expect(!machine.acceptsNewCalls)
    }

    @Test func aCompletePrefaceStopsTheDeadline() {
        var machine = Self.machine()
        machine.prefaceReceived()
        #expect(machine.readProcessed() == nil)
        #expect(machine.timerFired(.requestHead, at: Self.at(10)) == [])
        #expect(machine.phase == .serving)
    }

    @Test func aHeadWithinOneReadNeverArmsATimer() {
        var machine = Self.machine()
        machine.prefaceReceived()
        _ = machine.timerFired(.requestHead, at: Self.at(10))
        machine.bytesReceived(at: Self.at(20))
        machine.headerBlockStarted()
        machine.headerBlockEnded()
        #expect(machine.readProcessed() == nil)
    }

    @Test func aHeadSpanningReadsIsDueATimeoutAfterItsFirstRead() {
        var machine = Self.machine()
        machine.prefaceReceived()
        _ = machine.timerFired(.requestHead, at: Self.at(10))
        machine.bytesReceived(at: Self.at(20))
        machine.headerBlockStarted()
        #expect(machine.readProcessed() == .scheduleTimer(.requestHead, at: Self.at(30)))
        // More reads of the same block: the deadline stays, and one timer watches it.
        machine.bytesReceived(at: Self.at(29))
        machine.headerBlockStarted()
        #expect(machine.readProcessed() == nil)
        #expect(machine.timerFired(.requestHead, at: Self.at(30)) == Self.headTimedOut(at: 30))
    }

    @Test func aTimerOutlivingItsHeadRearmsForALaterOne() {
        var machine = Self.machine()
        machine.prefaceReceived()
        _ = machine.timerFired(.requestHead, at: Self.at(10))
        machine.bytesReceived(at: Self.at(20))
        machine.headerBlockStarted()
        #expect(machine.readProcessed() == .scheduleTimer(.requestHead, at: Self.at(30)))
        machine.headerBlockEnded()
        machine.bytesReceived(at: Self.at(25))
        machine.headerBlockStarted()
        #expect(machine.readProcessed() == nil)  // the pending timer serves
        #expect(machine.timerFired(.requestHead, at: Self.at(30)) == [.scheduleTimer(.requestHead, at: Self.at(35))])
        machine.headerBlockEnded()
        #expect(machine.timerFired(.requestHead, at: Self.at(35)) == [])
        #expect(machine.phase == .serving)
    }

    @Test func aRefusedBlockEndsItsDeadline() {
        var machine = Self.machine()
        machine.prefaceReceived()
        machine.bytesReceived(at: Self.at(20))
        machine.headerBlockStarted()
        machine.headerBlockEnded()  // refused: nghttp2 skips the rest without reporting its end
        #expect(machine.timerFired(.requestHead, at: Self.at(30)) == [])
    }

    @Test func aSlowHeadDuringShutdownStillClosesTheConnection() {
        var machine = Self.machine()
        machine.prefaceReceived()
        _ = machine.gracefulShutdownBegan(at: Self.at(15))
        machine.bytesReceived(at: Self.at(16))
        machine.headerBlockStarted()
        _ = machine.readProcessed()
        #expect(machine.timerFired(.requestHead, at: Self.at(26)) == Self.headTimedOut(at: 26))
    }
}
