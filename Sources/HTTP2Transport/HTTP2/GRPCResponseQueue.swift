import RPCCore
import Synchronization

/// The response side of one gRPC call: what the handler has produced and the connection has not yet sent.
///
/// Handlers append from any thread; the connection's loop drains it inside nghttp2's data provider. A writer that
/// gets more than `highWater` bytes ahead of the socket suspends until the loop has drained below it.
final class GRPCResponseQueue: ServerResponseSink {
    struct Control {
        var headers: Metadata?
        var headersRequested = false
        var status: RPCStatus?
        var hasMessages = false
    }

    fileprivate struct State {
        /// A synchronous call's response message, kept apart from ``messages`` (an array for it would be an
        /// allocation per call); when set, it is older than every message in ``messages``.
        var unaryMessage: [UInt8]?
        var messages: [[UInt8]] = []
        var head = 0
        /// Bytes of `messages[head]` already sent, counting its 5-byte prefix.
        var headOffset = 0
        var queuedBytes = 0
        var headers: Metadata?
        var headersRequested = false
        var status: RPCStatus?
        /// The transport ended the call (``abort(with:)``): `status` is what the client got. A flag, not a second
        /// status: the queue is allocated per call, and a larger one falls out of the allocator's per-thread cache.
        var abortedByTransport = false
        var trailers = Metadata()
        var closed = false
        var wakeScheduled = false
        var writers: [CheckedContinuation<Void, any Error>] = []
    }

    private let state = Mutex(State())
    private let highWater: Int
    private let waker: any ResponseQueueWaker
    private let streamID: Int32
    /// The call's metrics; nil for a call refused before it reached a method.
    let metrics: GRPCServerMetrics.Call?

    init(highWater: Int, waker: any ResponseQueueWaker, streamID: Int32, metrics: GRPCServerMetrics.Call?) {
        self.highWater = highWater
        self.waker = waker
        self.streamID = streamID
        self.metrics = metrics
    }

    /// Asks the loop to look at this queue; called at most once per burst of activity.
    private func wake() {
        waker.wake(streamID: streamID)
    }

    // MARK: ServerResponseSink (any thread)

    func sendHeaders(_ metadata: Metadata) {
        let needsWake = state.withLock { state -> Bool in
            guard !state.closed, state.status == nil, !state.headersRequested else { return false }
            state.headersRequested = true
            state.headers = metadata
            return state.scheduleWake()
        }
        if needsWake { wake() }
    }

    func sendMessage(_ message: [UInt8]) async throws {
        enum Outcome { case queued(wake: Bool), full, closed }
        let outcome = state.withLock { state -> Outcome in
            guard !state.closed, state.status == nil else { return .closed }
            state.messages.append(message)
            state.queuedBytes += message.count + MessageFraming.prefixLength
            let wake = state.scheduleWake()
            return state.queuedBytes > highWater ? .full : .queued(wake: wake)
        }
        switch outcome {
        case .closed: throw CancellationError()
        case .queued(let needsWake):
            metrics?.messageSent()
            if needsWake { wake() }
        case .full:
            metrics?.messageSent()
            wake()
            try await waitForRoom()
        }
    }

    func addTrailer(_ value: Metadata.Value, forKey key: String) {
        state.withLock { $0.trailers.add(value, forKey: key) }
    }

    var transportStatus: RPCStatus? { state.withLock { $0.abortedByTransport ? $0.status : nil } }

    func finish(_ status: RPCStatus) {
        let needsWake = state.withLock { state -> Bool in
            guard !state.closed, state.status == nil else { return false }
            state.status = status.adding(state.trailers)
            return state.scheduleWake()
        }
        if needsWake { wake() }
    }

    private func waitForRoom() async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resume = state.withLock { state -> Result<Void, any Error>? in
                    if state.closed || Task.isCancelled { return .failure(CancellationError()) }
                    if state.queuedBytes <= highWater { return .success(()) }
                    state.writers.append(continuation)
                    return nil
                }
                if let resume { continuation.resume(with: resume) }
            }
        } onCancel: {
            close()
        }
    }

    // MARK: Loop side

    /// The whole response of a call that ran on the loop. No wake: the caller services the stream itself.
    func complete(message: [UInt8]?, status: RPCStatus) {
        state.withLock { state in
            guard !state.closed, state.status == nil else { return }
            if let message {
                if state.hasMessages { state.messages.append(message) } else { state.unaryMessage = message }
                state.queuedBytes += message.count + MessageFraming.prefixLength
            }
            state.status = status.adding(state.trailers)
        }
    }

    /// What ``abort(with:)`` did; the call's state machine decides what follows.
    typealias AbortOutcome = GRPCServerStreamStateMachine.AbortOutcome

    /// Ends the call from the transport (deadline, shutdown, a bad request): drops queued messages, wakes suspended
    /// writers, and makes `status` the one the client gets, replacing any the handler set but that was not sent.
    func abort(with status: RPCStatus) -> AbortOutcome {
        let (writers, outcome) = state.withLock { state -> ([CheckedContinuation<Void, any Error>], AbortOutcome) in
            defer { state.writers.removeAll() }
            guard !state.closed else { return (state.writers, .alreadyClosed) }
            let midMessage = state.headOffset > 0
            state.unaryMessage = nil
            state.messages.removeAll()
            state.head = 0
            state.headOffset = 0
            state.queuedBytes = 0
            state.status = status.adding(state.trailers)
            state.abortedByTransport = true
            if midMessage { state.closed = true }
            return (state.writers, midMessage ? .midMessage : .statusQueued)
        }
        for writer in writers { writer.resume(throwing: CancellationError()) }
        return outcome
    }

    /// The stream is gone: every later write fails.
    func close() {
        let writers = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.closed = true
            state.unaryMessage = nil
            state.messages.removeAll()
            state.queuedBytes = 0
            defer { state.writers.removeAll() }
            return state.writers
        }
        for writer in writers { writer.resume(throwing: CancellationError()) }
    }

    /// What the loop must do next for this call; clears the pending wake.
    func takeControl() -> Control {
        state.withLock { state in
            state.wakeScheduled = false
            defer { state.headers = nil }
            return Control(
                headers: state.headers, headersRequested: state.headersRequested, status: state.status,
                hasMessages: state.hasMessages)
        }
    }

    /// Copies framed messages into `buffer`. Returns the byte count and, when everything queued is out and the
    /// handler has finished, its status.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> (count: Int, status: RPCStatus?) {
        var resumed: [CheckedContinuation<Void, any Error>] = []
        let result = state.withLock { state -> (Int, RPCStatus?) in
            var written = 0
            if let message = state.unaryMessage {
                let (count, complete) = state.copy(message, into: buffer)
                written = count
                if complete { state.unaryMessage = nil }
            }
            while written < buffer.count, state.head < state.messages.count {
                let (count, complete) = state.copy(
                    state.messages[state.head], into: UnsafeMutableRawBufferPointer(rebasing: buffer[written...]))
                written += count
                if complete { state.head += 1 }
            }
            if state.head == state.messages.count, state.head > 0 {
                state.messages.removeAllKeepingStorage()
                state.head = 0
            }
            state.queuedBytes -= written
            if state.queuedBytes <= highWater, !state.writers.isEmpty {
                resumed = state.writers
                state.writers.removeAll()
            }
            let done = !state.hasMessages
            // An empty queue defers the stream: the next message must wake the loop again.
            if done { state.wakeScheduled = false }
            return (written, done ? state.status : nil)
        }
        for writer in resumed { writer.resume() }
        return result
    }
}

/// Tells a connection's loop that a stream's response queue has something new. One per connection, so calls need
/// no closure of their own.
protocol ResponseQueueWaker: Sendable {
    func wake(streamID: Int32)
}

extension GRPCResponseQueue.State {
    /// Marks a wake as pending; true when the caller must deliver it.
    fileprivate mutating func scheduleWake() -> Bool {
        guard !wakeScheduled else { return false }
        wakeScheduled = true
        return true
    }

    var hasMessages: Bool { unaryMessage != nil || head < messages.count }

    /// Copies as much of `message`, the oldest unsent one, as fits (prefix first, from ``headOffset``); `complete`
    /// when its last byte went, and the next message starts at offset 0.
    fileprivate mutating func copy(_ message: [UInt8], into buffer: UnsafeMutableRawBufferPointer)
        -> (count: Int, complete: Bool)
    {
        var written = 0
        if headOffset < MessageFraming.prefixLength {
            var prefix: (UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &prefix) { MessageFraming.writePrefix(length: message.count, into: $0) }
            withUnsafeBytes(of: &prefix) { prefixBytes in
                let count = min(MessageFraming.prefixLength - headOffset, buffer.count)
                buffer.baseAddress!.copyMemory(from: prefixBytes.baseAddress! + headOffset, byteCount: count)
                written = count
            }
            headOffset += written
            if headOffset < MessageFraming.prefixLength { return (written, false) }
        }
        let bodyOffset = headOffset - MessageFraming.prefixLength
        let count = min(message.count - bodyOffset, buffer.count - written)
        if count > 0 {
            message.withUnsafeBytes { body in
                (buffer.baseAddress! + written).copyMemory(from: body.baseAddress! + bodyOffset, byteCount: count)
            }
        }
        headOffset += count
        written += count
        guard headOffset == message.count + MessageFraming.prefixLength else { return (written, false) }
        headOffset = 0
        return (written, true)
    }
}
