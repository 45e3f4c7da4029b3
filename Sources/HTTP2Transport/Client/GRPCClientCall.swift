public import RPCCore
import Synchronization

/// One call from the client: its response headers, messages and final status.
///
/// Iterate it for the response messages; iteration ends normally on `OK` and throws ``RPCError`` otherwise.
public final class GRPCClientCall: AsyncSequence, Sendable {
    public typealias Element = [UInt8]

    let messages = MessageStream()
    private let state = Mutex(State())
    private let onCancel: @Sendable () -> Void

    private struct State {
        var headers: Metadata?
        var headerWaiters: [CheckedContinuation<Metadata, any Error>] = []
        var status: RPCStatus?
    }

    init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = onCancel
    }

    /// The response headers' custom metadata (empty for a Trailers-Only response).
    public func responseHeaders() async throws -> Metadata {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { state -> Result<Metadata, any Error>? in
                if let headers = state.headers { return .success(headers) }
                if let status = state.status { return .failure(RPCError(code: status.code, message: status.message)) }
                state.headerWaiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }

    /// The status once the call has ended.
    public var status: RPCStatus? { state.withLock { $0.status } }

    /// Resets the stream; the server's handler sees the cancellation.
    public func cancel() {
        onCancel()
        complete(RPCStatus(code: .cancelled, message: "The call was cancelled by the client."))
    }

    public func makeAsyncIterator() -> MessageStream.AsyncIterator {
        messages.makeAsyncIterator()
    }

    /// The single response of a unary call.
    public func singleMessage() async throws -> [UInt8] {
        try await withTaskCancellationHandler {
            guard let message = try await messages.next() else {
                throw RPCError(code: .internal, message: "The server sent no response message.")
            }
            guard try await messages.next() == nil else {
                throw RPCError(code: .internal, message: "The server sent more than one response message.")
            }
            return message
        } onCancel: {
            cancel()
        }
    }

    // MARK: Loop side

    func receivedHeaders(_ metadata: Metadata) {
        let waiters = state.withLock { state in
            state.headers = metadata
            defer { state.headerWaiters.removeAll() }
            return state.headerWaiters
        }
        for waiter in waiters { waiter.resume(returning: metadata) }
    }

    func received(message: [UInt8]) {
        messages.yield(message)
    }

    /// Ends the call with `status`; the first status wins. `cause` becomes the error's ``RPCError/cause``: why the
    /// client itself failed the call (``ClientConnectionFailure``).
    func complete(_ status: RPCStatus, cause: (any Error)? = nil) {
        let waiters = state.withLock { state -> [CheckedContinuation<Metadata, any Error>]? in
            guard state.status == nil else { return nil }
            state.status = status
            defer { state.headerWaiters.removeAll() }
            return state.headerWaiters
        }
        guard let waiters else { return }
        let error = RPCError(code: status.code, message: status.message, metadata: status.trailers, cause: cause)
        for waiter in waiters { waiter.resume(throwing: error) }
        messages.finish(throwing: status.code == .ok ? nil : error)
    }
}
