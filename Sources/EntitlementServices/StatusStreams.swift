import EntitlementDomain
import EntitlementsProto
import ProtobufWire
import RPCCore

/// `StreamStatus`: the first messages (a snapshot, or the events after the client's version), then every change
/// committed to the customer, until the client goes.
///
/// Written flat, without ``CallLog/call(_:_:)``'s closures, and with every value larger than a pointer kept out of
/// the frames that wait: a status stream lives as long as the app is open, and every async frame its task ever held
/// stays allocated until it ends (the task allocator keeps its slabs for reuse), so nested generic wrappers and wide
/// frames cost kilobytes per open stream. ``StatusStream`` does the synchronous work between the waits, out of line
/// (inlined into this async function, its locals would widen the frame), and a customer the cache holds is
/// subscribed to without waiting at all. The call's log line and its authentication
/// are the same as every other call's.
final class StatusStreams: Sendable {
    let engine: CustomerEngine
    let tenants: TenantRegistry
    let log: CallLog
    let userTokens: UserTokenGate
    let limits: StreamLimits
    /// How long a gRPC-Web status stream may stay silent before a `HEARTBEAT` event goes out.
    let grpcWebHeartbeatInterval: Duration
    let metrics: ServiceMetrics

    init(
        engine: CustomerEngine, tenants: TenantRegistry, log: CallLog, userTokens: UserTokenGate, limits: StreamLimits,
        grpcWebHeartbeatInterval: Duration, metrics: ServiceMetrics
    ) {
        self.engine = engine
        self.tenants = tenants
        self.log = log
        self.userTokens = userTokens
        self.limits = limits
        self.grpcWebHeartbeatInterval = grpcWebHeartbeatInterval
        self.metrics = metrics
    }

    func serve(
        _ request: StreamStatusRequest, _ writer: ResponseWriter<EncodedMessage<StatusEvent>>, _ context: ServerContext
    ) async throws {
        let stream = StatusStream(streams: self, context: context)
        do {
            try stream.begin(request)
            while try !stream.open(heartbeatOn: context.rpcProtocol.needsHeartbeat ? writer : nil) { try await stream.load() }
            while let message = await stream.next() {
                try await writer.write(message.event)
                stream.sent(message)
            }
            // The server ends a subscription whose customer is gone; otherwise it ends only when the call does: the
            // client cancelled or its deadline passed.
            if let reason = stream.endedBy { throw reason }
            try Task.checkCancellation()
            stream.finish(error: nil)
        } catch {
            stream.finish(error: error)
            throw error
        }
    }
}
