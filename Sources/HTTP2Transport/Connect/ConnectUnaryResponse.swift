import RPCCore
import Synchronization

/// The response side of a Connect unary call: what the handler produced, kept until its status, since a unary
/// Connect response is sent whole (its HTTP status is the call's). The first status wins: the handler's, or the
/// transport's when the deadline passes first.
final class ConnectUnaryResponse: ServerResponseSink {
    /// What the call ended with.
    struct Outcome: Sendable {
        var headers: Metadata
        var message: [UInt8]?
        /// The trailers the handler added are in it.
        var status: RPCStatus
    }

    private struct State {
        var headers = Metadata()
        var message: [UInt8]?
        var trailers = Metadata()
        var outcome: Outcome?
        var abortedByTransport = false
        var onFinish: (@Sendable (Outcome) -> Void)?
    }

    private let state = Mutex(State())

    func sendHeaders(_ metadata: Metadata) {
        state.withLock { if $0.outcome == nil { $0.headers = metadata } }
    }

    func sendMessage(_ message: [UInt8]) async throws {
        let ended = state.withLock { state in
            guard state.outcome == nil else { return true }
            state.message = message
            return false
        }
        if ended { throw CancellationError() }
    }

    func addTrailer(_ value: Metadata.Value, forKey key: String) {
        state.withLock { $0.trailers.add(value, forKey: key) }
    }

    func finish(_ status: RPCStatus) {
        end(status, byTransport: false)
    }

    var transportStatus: RPCStatus? { state.withLock { $0.abortedByTransport ? $0.outcome?.status : nil } }

    /// Ends the call from the transport (its deadline passed); false when it had ended already.
    @discardableResult
    func abort(with status: RPCStatus) -> Bool {
        end(status, byTransport: true)
    }

    /// The outcome of a call answered on the loop (``RPCHandler/SynchronousOutcome/answered(response:status:)``),
    /// with whatever headers and trailers its handler set.
    func answered(message: [UInt8]?, status: RPCStatus) -> Outcome {
        state.withLock { state in
            Outcome(headers: state.headers, message: message, status: status.adding(state.trailers))
        }
    }

    /// Calls `body` once with the outcome: now if the call has ended, else when it does.
    func onFinish(_ body: @escaping @Sendable (Outcome) -> Void) {
        let outcome = state.withLock { state -> Outcome? in
            if state.outcome == nil { state.onFinish = body }
            return state.outcome
        }
        if let outcome { body(outcome) }
    }

    @discardableResult
    private func end(_ status: RPCStatus, byTransport: Bool) -> Bool {
        let (ended, notify) = state.withLock { state -> (Bool, (@Sendable (Outcome) -> Void, Outcome)?) in
            guard state.outcome == nil else { return (false, nil) }
            let outcome = Outcome(
                headers: state.headers, message: status.code == .ok ? state.message : nil,
                status: status.adding(state.trailers))
            state.outcome = outcome
            state.abortedByTransport = byTransport
            state.message = nil
            defer { state.onFinish = nil }
            return (true, state.onFinish.map { ($0, outcome) })
        }
        if let notify { notify.0(notify.1) }
        return ended
    }
}
