import RPCCore

/// Loop-side state of one gRPC call on an HTTP/2 stream.
final class GRPCServerCall {
    let responses: GRPCResponseQueue
    let requests: RPCRequestStream
    let window: InboundWindow
    var deframer: MessageDeframer
    var task: Task<Void, Never>?
    var deadlineTimer: TimerHeap.ID?
    /// Response HEADERS were submitted (normal or Trailers-Only).
    var responseStarted = false
    /// The status went out (trailers or Trailers-Only); nothing more will be sent.
    var statusSubmitted = false
    /// The request stream has ended or failed; later DATA is ignored.
    var requestsFinished = false

    init(responses: GRPCResponseQueue, requests: RPCRequestStream, window: InboundWindow, deframer: MessageDeframer) {
        self.responses = responses
        self.requests = requests
        self.window = window
        self.deframer = deframer
    }

    /// Stops the handler and reports `error` to the client unless a status is already on its way.
    /// Returns true when the loop must service the response queue.
    func fail(_ error: RPCError) -> Bool {
        finishRequests(throwing: error)
        task?.cancel()
        return responses.abort(with: RPCStatus(error))
    }

    func finishRequests(throwing error: RPCError? = nil) {
        guard !requestsFinished else { return }
        requestsFinished = true
        requests.finish(throwing: error)
    }
}
