import RPCCore
import Synchronization
import TestSupport

/// Calls into the fixture's gRPC router in-process, as the transport makes them: metadata, a deadline, the request
/// messages, then the status; a streaming call is cancelled once it has answered.
extension FuzzServer {
    /// What one call ended with.
    public struct Outcome: Sendable {
        public var status: RPCStatus
        public var messages: [[UInt8]]
    }

    /// `authorization: Bearer <key>`.
    public static func metadata(key: String?) -> Metadata {
        var metadata = Metadata()
        if let key { metadata.addString("Bearer " + key, forKey: "authorization") }
        return metadata
    }

    /// How long a handler may go on after its deadline or cancellation: its work in flight (a database write, a
    /// signature) ends, nothing new starts.
    static let cancellationGrace = Duration.seconds(5)

    /// Runs one call to its end: the status it answers, or the transport's `DEADLINE_EXCEEDED` after `timeout`; either
    /// way the handler must then return within ``cancellationGrace`` (a handler that ignores its cancellation goes on
    /// working for a caller that has gone). A streaming call is cancelled after its first answer, as a client that
    /// goes away.
    public func call(
        _ path: String, _ request: [UInt8], metadata: Metadata, timeout: Duration = .seconds(2), streaming: Bool = false
    ) async -> Outcome {
        let started = ContinuousClock.now
        let call = InProcessCall(router: wiring.router, path: path, metadata: metadata, timeout: timeout)
        call.send(bytes: request)
        call.finishSending()
        if streaming {
            _ = await call.nextEvent()
            call.cancel()
        }
        let status = await call.status()
        await call.waitForHandler()
        let took = started.duration(to: .now)
        if took > timeout + Self.cancellationGrace {
            fatalError("hang: \(path)'s handler ran \(took), more than \(Self.cancellationGrace) past its deadline of \(timeout)")
        }
        return Outcome(status: status, messages: call.sink.messages)
    }

    /// ``call(_:_:metadata:timeout:streaming:)`` from synchronous code, within `limit`.
    public func callBlocking(_ path: String, _ request: [UInt8], key: String?, within limit: Duration = .seconds(30)) -> Outcome {
        let outcome = Mutex<Outcome?>(nil)
        runBounded("\(path)", within: limit) {
            let result = await self.call(path, request, metadata: Self.metadata(key: key))
            outcome.withLock { $0 = result }
        }
        return outcome.withLock { $0! }
    }
}
