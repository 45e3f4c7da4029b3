public import ProtobufWire
public import RPCCore
import Synchronization

// Drives a router's handlers in-process, without a network: requests go straight into an `MessageStream`, and a
// `RecordingResponseSink` collects what the handler sends back.

/// A ``ServerResponseSink`` that records headers, messages and the final status as an ordered event log.
///
/// Readers either inspect the log (``events``, ``messages``, ``status``) or wait for events
/// (``event(at:)``, ``eventStream()``). ``pauseSending()`` makes `sendMessage` suspend as a transport does for a
/// client that does not read, to exercise back-pressure; ``resumeSending()`` lets the senders through.
public final class RecordingResponseSink: ServerResponseSink {
    public enum Event: Sendable, Hashable {
        case headers(Metadata)
        case message([UInt8])
        case status(RPCStatus)
    }

    private struct State {
        var events: [Event] = []
        var isFinished = false
        var trailers = Metadata()
        var isPaused = false
        var nextWaiterID: UInt64 = 0
        /// Senders suspended by ``pauseSending()``.
        var pausedSenders: [UInt64: CheckedContinuation<Void, any Error>] = [:]
        /// Readers waiting for the event at `index`.
        var readers: [UInt64: (index: Int, continuation: CheckedContinuation<Event?, Never>)] = [:]

        /// Appends `event` and takes the readers it (or the end of the log) answers.
        mutating func append(_ event: Event) -> [(CheckedContinuation<Event?, Never>, Event?)] {
            events.append(event)
            var answered: [(CheckedContinuation<Event?, Never>, Event?)] = []
            for (id, reader) in readers where reader.index < events.count || isFinished {
                readers[id] = nil
                answered.append((reader.continuation, reader.index < events.count ? events[reader.index] : nil))
            }
            return answered
        }
    }

    private let state = Mutex(State())

    public init() {}

    // MARK: ServerResponseSink

    public func sendHeaders(_ metadata: Metadata) {
        let answered = state.withLock { state in
            state.isFinished ? [] : state.append(.headers(metadata))
        }
        for (reader, event) in answered { reader.resume(returning: event) }
    }

    /// Records the message; suspends while paused, and throws `CancellationError` once the call has finished.
    public func sendMessage(_ message: [UInt8]) async throws {
        try await waitWhilePaused()
        let answered = try state.withLock { state throws(CancellationError) in
            guard !state.isFinished else { throw CancellationError() }
            return state.append(.message(message))
        }
        for (reader, event) in answered { reader.resume(returning: event) }
    }

    public func addTrailer(_ value: Metadata.Value, forKey key: String) {
        state.withLock { $0.trailers.add(value, forKey: key) }
    }

    /// Records the status, trailers added before it included; later calls are ignored. Paused senders fail, as on a stream that is gone.
    public func finish(_ status: RPCStatus) {
        let (answered, senders) = state.withLock { state in
            guard !state.isFinished else {
                return ([(CheckedContinuation<Event?, Never>, Event?)](), [CheckedContinuation<Void, any Error>]())
            }
            state.isFinished = true
            let answered = state.append(.status(status.adding(state.trailers)))
            let senders = Array(state.pausedSenders.values)
            state.pausedSenders = [:]
            return (answered, senders)
        }
        for (reader, event) in answered { reader.resume(returning: event) }
        for sender in senders { sender.resume(throwing: CancellationError()) }
    }

    /// A status recorded before the handler ended the call came from the "transport" (``InProcessCall``'s deadline
    /// or cancellation): the handler's own is recorded only once it has returned.
    public var transportStatus: RPCStatus? { status }

    // MARK: Inspection

    /// Everything recorded so far, in order.
    public var events: [Event] { state.withLock { $0.events } }

    /// The messages recorded so far, in order.
    public var messages: [[UInt8]] {
        events.compactMap { if case .message(let message) = $0 { message } else { nil } }
    }

    /// The metadata of an explicit ``sendHeaders(_:)``, if the handler sent headers.
    public var headers: Metadata? {
        events.lazy.compactMap { if case .headers(let metadata) = $0 { metadata } else { nil } }.first
    }

    /// The final status, once the call has finished.
    public var status: RPCStatus? {
        events.lazy.compactMap { if case .status(let status) = $0 { status } else { nil } }.first
    }

    public var isFinished: Bool { state.withLock { $0.isFinished } }

    /// How many `sendMessage` calls are suspended by ``pauseSending()``.
    public var suspendedSendCount: Int { state.withLock { $0.pausedSenders.count } }

    /// The event at `index` of the log, waiting for it if needed; nil when the call finished before producing it,
    /// or when the waiting task is cancelled.
    public func event(at index: Int) async -> Event? {
        let waiterID = state.withLock { state in
            defer { state.nextWaiterID += 1 }
            return state.nextWaiterID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Event?, Never>) in
                enum Immediate { case answer(Event?), wait }
                let immediate = state.withLock { state -> Immediate in
                    if index < state.events.count { return .answer(state.events[index]) }
                    if state.isFinished || Task.isCancelled { return .answer(nil) }
                    state.readers[waiterID] = (index, continuation)
                    return .wait
                }
                if case .answer(let event) = immediate { continuation.resume(returning: event) }
            }
        } onCancel: {
            let reader = state.withLock { $0.readers.removeValue(forKey: waiterID) }
            reader?.continuation.resume(returning: nil)
        }
    }

    /// The whole event log from the start, then each new event as it comes; ends after the status. Each call
    /// returns an independent stream.
    public func eventStream() -> AsyncStream<Event> {
        let cursor = Cursor()
        return AsyncStream(unfolding: { [self] in
            await event(at: cursor.advance())
        })
    }

    /// Waits for the final status.
    public func waitForStatus() async -> RPCStatus? {
        var index = 0
        while let event = await event(at: index) {
            if case .status(let status) = event { return status }
            index += 1
        }
        return nil
    }

    // MARK: Back-pressure

    /// Makes later `sendMessage` calls suspend (as for a client that stops reading) until ``resumeSending()``.
    public func pauseSending() {
        state.withLock { $0.isPaused = true }
    }

    /// Lets suspended and later `sendMessage` calls through.
    public func resumeSending() {
        let senders = state.withLock { state in
            state.isPaused = false
            defer { state.pausedSenders = [:] }
            return Array(state.pausedSenders.values)
        }
        for sender in senders { sender.resume() }
    }

    private func waitWhilePaused() async throws {
        guard state.withLock({ $0.isPaused && !$0.isFinished }) else { return }
        let waiterID = state.withLock { state in
            defer { state.nextWaiterID += 1 }
            return state.nextWaiterID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Immediate { case proceed, fail, wait }
                let immediate = state.withLock { state -> Immediate in
                    if state.isFinished || Task.isCancelled { return .fail }
                    guard state.isPaused else { return .proceed }
                    state.pausedSenders[waiterID] = continuation
                    return .wait
                }
                switch immediate {
                case .proceed: continuation.resume()
                case .fail: continuation.resume(throwing: CancellationError())
                case .wait: break
                }
            }
        } onCancel: {
            let sender = state.withLock { $0.pausedSenders.removeValue(forKey: waiterID) }
            sender?.resume(throwing: CancellationError())
        }
    }

    private final class Cursor: Sendable {
        private let next = Mutex(0)
        func advance() -> Int {
            next.withLock { index in
                defer { index += 1 }
                return index
            }
        }
    }
}

/// One call running a router's handler in-process: feed it requests, read what it answers.
///
/// ```swift
/// let call = InProcessCall(router: router, path: "/grpc.health.v1.Health/Watch")
/// call.send(HealthCheckRequest(service: "x"))
/// call.finishSending()
/// let first = try await call.nextMessage(as: HealthCheckResponse.self)
/// call.cancel()
/// ```
///
/// Like a transport, the call reports `CANCELLED` itself on ``cancel()`` and `DEADLINE_EXCEEDED` when `timeout`
/// runs out, then cancels the handler task; a path no handler serves ends at once with the router's `UNIMPLEMENTED`.
public final class InProcessCall: Sendable {
    public let requests: MessageStream
    public let sink: RecordingResponseSink
    private let handlerTask: Task<Void, Never>?
    private let watchdog: Task<Void, Never>?
    private let readIndex = Mutex(0)

    public convenience init(
        router: RPCRouter,
        path: String,
        metadata: Metadata = Metadata(),
        timeout: Duration? = nil,
        peer: String = "in-process"
    ) {
        guard let handler = router.handler(forPath: path), let method = MethodDescriptor(path: path) else {
            self.init(finishedWith: RPCStatus(router.unimplementedError(forPath: path)))
            return
        }
        self.init(handler: handler, method: method, metadata: metadata, timeout: timeout, peer: peer)
    }

    public init(
        handler: RPCHandler,
        method: MethodDescriptor,
        metadata: Metadata = Metadata(),
        timeout: Duration? = nil,
        peer: String = "in-process"
    ) {
        let requests = MessageStream()
        let sink = RecordingResponseSink()
        let context = ServerContext(
            method: method,
            metadata: metadata,
            timeout: timeout,
            peer: peer,
            responseSink: sink
        )
        let handlerTask = Task { await handler.run(requests: requests, context: context) }
        self.requests = requests
        self.sink = sink
        self.handlerTask = handlerTask
        if let timeout {
            watchdog = Task {
                do { try await Task.sleep(for: timeout) } catch { return }
                sink.finish(RPCStatus(RPCError.deadlineExceeded))
                handlerTask.cancel()
            }
        } else {
            watchdog = nil
        }
    }

    private init(finishedWith status: RPCStatus) {
        requests = MessageStream()
        sink = RecordingResponseSink()
        handlerTask = nil
        watchdog = nil
        requests.finish()
        sink.finish(status)
    }

    deinit {
        watchdog?.cancel()
    }

    // MARK: Requests

    public func send<Message: ProtoMessage>(_ message: Message) {
        requests.yield(message.serializedBytes())
    }

    public func send(bytes: [UInt8]) {
        requests.yield(bytes)
    }

    /// Half-closes: the handler sees the end of the request messages.
    public func finishSending() {
        requests.finish()
    }

    /// Ends the call as a client reset does: the status is `CANCELLED` (unless the call already finished) and the
    /// handler task is cancelled.
    public func cancel() {
        sink.finish(RPCStatus(code: .cancelled, message: "The client cancelled the call."))
        requests.finish(throwing: RPCError(code: .cancelled, message: "The client cancelled the call."))
        handlerTask?.cancel()
    }

    // MARK: Responses

    /// The next event this reader has not seen (calls share one read position); nil after the status.
    public func nextEvent() async -> RecordingResponseSink.Event? {
        let index = readIndex.withLock { index in
            defer { index += 1 }
            return index
        }
        return await sink.event(at: index)
    }

    /// The next response message, skipping headers; nil when the call ended instead (see ``status()``).
    public func nextMessage() async -> [UInt8]? {
        while let event = await nextEvent() {
            if case .message(let message) = event { return message }
        }
        return nil
    }

    /// The next response message, decoded; nil when the call ended instead.
    public func nextMessage<Message: ProtoMessage>(as type: Message.Type = Message.self) async throws -> Message? {
        guard let bytes = await nextMessage() else { return nil }
        return try Message(serializedBytes: bytes)
    }

    /// Waits for the final status, whatever was read before.
    public func status() async -> RPCStatus {
        await sink.waitForStatus() ?? RPCStatus(code: .internal, message: "The call ended without a status.")
    }

    /// Waits for the handler task itself to return (the status may have been reported earlier by ``cancel()``).
    public func waitForHandler() async {
        await handlerTask?.value
    }

    /// Every response message of the call so far, decoded.
    public func messages<Message: ProtoMessage>(as type: Message.Type = Message.self) throws -> [Message] {
        try sink.messages.map { try Message(serializedBytes: $0) }
    }
}

/// What a finished in-process call produced.
public struct InProcessResult: Sendable {
    public var headers: Metadata?
    public var messages: [[UInt8]]
    public var status: RPCStatus

    public func messages<Message: ProtoMessage>(as type: Message.Type = Message.self) throws -> [Message] {
        try messages.map { try Message(serializedBytes: $0) }
    }
}

extension InProcessCall {
    /// Runs a call of any shape to its end: sends `requests`, half-closes, waits for the status.
    public static func run(
        router: RPCRouter,
        path: String,
        requests: [[UInt8]],
        metadata: Metadata = Metadata(),
        timeout: Duration? = nil
    ) async -> InProcessResult {
        let call = InProcessCall(router: router, path: path, metadata: metadata, timeout: timeout)
        for request in requests { call.send(bytes: request) }
        call.finishSending()
        let status = await call.status()
        return InProcessResult(headers: call.sink.headers, messages: call.sink.messages, status: status)
    }

    /// Runs a call with typed messages to its end.
    public static func run<Request: ProtoMessage>(
        router: RPCRouter,
        path: String,
        requests: [Request],
        metadata: Metadata = Metadata(),
        timeout: Duration? = nil
    ) async -> InProcessResult {
        await run(
            router: router,
            path: path,
            requests: requests.map { $0.serializedBytes() },
            metadata: metadata,
            timeout: timeout
        )
    }

    /// A unary call: its one response, or the non-OK status as an `RPCError`.
    public static func unary<Request: ProtoMessage, Response: ProtoMessage>(
        router: RPCRouter,
        path: String,
        request: Request,
        as responseType: Response.Type = Response.self,
        metadata: Metadata = Metadata(),
        timeout: Duration? = nil
    ) async throws -> Response {
        let result = await run(router: router, path: path, requests: [request], metadata: metadata, timeout: timeout)
        guard result.status.code == .ok else {
            throw RPCError(code: result.status.code, message: result.status.message, metadata: result.status.trailers)
        }
        guard result.messages.count == 1, let response = result.messages.first else {
            throw RPCError(code: .internal, message: "A unary call answered \(result.messages.count) messages.")
        }
        return try Response(serializedBytes: response)
    }
}
