import EntitlementsProto
import ProtobufWire
import RPCCore
import Synchronization

/// Keeps a gRPC-Web status stream from looking dead: after `interval` with nothing written, it writes a `HEARTBEAT`
/// event (no customer; clients ignore it). Browsers' paths (proxies, load balancers) cut streams that stay silent,
/// and gRPC-Web has no HTTP/2 PING; native gRPC streams have the transport's keepalive instead.
final class StatusHeartbeat: Sendable {
    private let lastWrite = Mutex(ContinuousClock.now)
    private let task = Mutex<Task<Void, Never>?>(nil)

    private init() {}

    /// Starts beating on `writer`; ``stop()`` ends it (the call ended).
    static func start(every interval: Duration, on writer: ResponseWriter<EncodedMessage<StatusEvent>>) -> StatusHeartbeat {
        let heartbeat = StatusHeartbeat()
        let task = Task { await heartbeat.run(every: interval, on: writer) }
        heartbeat.task.withLock { $0 = task }
        return heartbeat
    }

    /// Something else went out: the next heartbeat is due an interval from now.
    func wrote() {
        lastWrite.withLock { $0 = .now }
    }

    func stop() {
        task.withLock { $0?.cancel() }
    }

    private func run(every interval: Duration, on writer: ResponseWriter<EncodedMessage<StatusEvent>>) async {
        while !Task.isCancelled {
            let due = lastWrite.withLock { $0 } + interval
            if due > .now {
                try? await Task.sleep(until: due, clock: .continuous)
                continue
            }
            do {
                try await writer.write(EncodedMessage(StatusEvent(kind: .heartbeat).serializedBytes()))
            } catch {
                return  // the call is gone
            }
            wrote()
        }
    }
}
