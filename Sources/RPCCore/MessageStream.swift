import Synchronization

/// The messages of one direction of a call: requests fed by the server transport to a handler, or responses fed by
/// the client transport to the caller.
///
/// The transport pushes messages as they are deframed; the reader pulls them. `onConsume` tells the transport how
/// many bytes the reader has taken so it can reopen the HTTP/2 flow-control window: a slow reader slows its peer.
public final class MessageStream: AsyncSequence, Sendable {
    public typealias Element = [UInt8]

    private struct State {
        var queue: [[UInt8]] = []
        var queueHead = 0
        var end: Result<Void, RPCError>?
        var waiter: CheckedContinuation<[UInt8]?, any Error>?
    }

    private let state = Mutex(State())
    private let onConsume: @Sendable (Int) -> Void

    public init(onConsume: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.onConsume = onConsume
    }

    // MARK: Producer (transport)

    public func yield(_ message: [UInt8]) {
        let waiter = state.withLock { state -> CheckedContinuation<[UInt8]?, any Error>? in
            guard state.end == nil else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.queue.append(message)
            return nil
        }
        if let waiter {
            onConsume(message.count)
            waiter.resume(returning: message)
        }
    }

    /// Ends the stream: normally (the client half-closed) or with an error the handler will see.
    public func finish(throwing error: RPCError? = nil) {
        let waiter = state.withLock { state -> CheckedContinuation<[UInt8]?, any Error>? in
            guard state.end == nil else { return nil }
            state.end = error.map { .failure($0) } ?? .success(())
            defer { state.waiter = nil }
            return state.waiter
        }
        if let error { waiter?.resume(throwing: error) } else { waiter?.resume(returning: nil) }
    }

    // MARK: Consumer (handler or caller)

    /// The next message, nil when the client has finished sending.
    public func next() async throws -> [UInt8]? {
        enum Immediate { case message([UInt8]), end(Result<Void, RPCError>), wait }
        let immediate = state.withLock { state -> Immediate in
            if state.queueHead < state.queue.count {
                let message = state.queue[state.queueHead]
                state.queueHead += 1
                if state.queueHead == state.queue.count {
                    state.queue.removeAll(keepingCapacity: true)
                    state.queueHead = 0
                }
                return .message(message)
            }
            if let end = state.end { return .end(end) }
            return .wait
        }
        switch immediate {
        case .message(let message):
            onConsume(message.count)
            return message
        case .end(.success): return nil
        case .end(.failure(let error)): throw error
        case .wait: break
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let resumeNow = state.withLock { state -> Result<[UInt8]?, any Error>? in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if state.queueHead < state.queue.count {
                        let message = state.queue[state.queueHead]
                        state.queueHead += 1
                        return .success(message)
                    }
                    switch state.end {
                    case .success?: return .success(nil)
                    case .failure(let error)?: return .failure(error)
                    case nil:
                        state.waiter = continuation
                        return nil
                    }
                }
                if let resumeNow {
                    if case .success(let message?) = resumeNow { onConsume(message.count) }
                    continuation.resume(with: resumeNow)
                }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let stream: MessageStream
        public mutating func next() async throws -> [UInt8]? { try await stream.next() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(stream: self) }
}
