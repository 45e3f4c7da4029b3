public import Metrics

/// The gRPC server metrics of the grpc-ecosystem middleware (go-grpc-middleware's `providers/prometheus`): the same
/// names, labels, help texts and buckets, so existing dashboards work. Every registered method × code series exists
/// × protocol series exists from the start, at 0. The `protocol` label (``RPCProtocol/name``: `grpc`, `grpc_web`,
/// `connect`) is ours: a query that sums over it sees what the middleware's would.
///
/// The handling-time histogram covers unary calls only: a status stream lives for hours, and its duration would
/// land in `+Inf` and peg every quantile.
public final class GRPCServerMetrics: MetricsSource {
    struct Method {
        let descriptor: MethodDescriptor
        let type: String
    }

    private static let codes = 17
    private static let codeNames = [
        "OK", "Canceled", "Unknown", "InvalidArgument", "DeadlineExceeded", "NotFound", "AlreadyExists",
        "PermissionDenied", "ResourceExhausted", "FailedPrecondition", "Aborted", "OutOfRange", "Unimplemented",
        "Internal", "Unavailable", "DataLoss", "Unauthenticated",
    ]
    private static let buckets = HistogramBuckets.standard
    // Each method's cells: started, received, sent, one per code, the histogram's buckets, its sum in nanoseconds.
    private static let started = 0, received = 1, sent = 2, handled = 3
    private static let bucketCells = handled + codes
    private static let sumCell = bucketCells + buckets.count
    private static let cellsPerMethod = sumCell + 1

    private let methods: [Method]
    private let cells: CounterCells
    private static let protocols = RPCProtocol.allCases

    /// - Parameter shards: one per thread that reports calls (the server's event loops).
    public init(router: RPCRouter, shards: Int) {
        methods = router.routesByMetricsIndex.map { route in
            let type =
                switch route.handler.kind {
                case .unary: "unary"
                case .serverStreaming: "server_stream"
                case .clientStreaming: "client_stream"
                case .bidirectional: "bidi_stream"
                }
            return Method(descriptor: route.method, type: type)
        }
        cells = CounterCells(shards: shards, cellsPerShard: methods.count * Self.protocols.count * Self.cellsPerMethod)
    }

    /// What the transport reports about one call, from the shard (event loop) that owns it.
    public struct Call: Sendable {
        let metrics: GRPCServerMetrics
        let base: Int
        let shard: Int
        let isUnary: Bool
        /// ``MonotonicClock/nanoseconds()`` when the call started.
        let started: UInt64

        public func messageReceived() {
            metrics.cells.add(cell: base + GRPCServerMetrics.received, shard: shard)
        }

        /// A streaming call's response message; unary calls count theirs when they finish.
        public func messageSent() {
            guard !isUnary else { return }
            metrics.cells.add(cell: base + GRPCServerMetrics.sent, shard: shard)
        }

        /// The call ended with `code`. A unary call whose handler ran counts its one response, as the middleware's
        /// interceptor does whatever the outcome.
        public func finished(_ code: RPCError.Code, handlerRan: Bool) {
            let cells = metrics.cells
            let codeIndex = (0..<GRPCServerMetrics.codes).contains(code.rawValue) ? code.rawValue : RPCError.Code.unknown.rawValue
            cells.add(cell: base + GRPCServerMetrics.handled + codeIndex, shard: shard)
            guard isUnary else { return }
            if handlerRan { cells.add(cell: base + GRPCServerMetrics.sent, shard: shard) }
            let nanoseconds = MonotonicClock.nanoseconds(since: started)
            cells.add(
                cell: base + GRPCServerMetrics.bucketCells + GRPCServerMetrics.buckets.index(ofNanoseconds: nanoseconds),
                shard: shard)
            cells.add(nanoseconds, cell: base + GRPCServerMetrics.sumCell, shard: shard)
        }
    }

    /// Counts a call to `route` in `rpcProtocol` as started.
    public func callStarted(_ route: RPCRouter.Route, protocol rpcProtocol: RPCProtocol, shard: Int) -> Call {
        let base = Self.base(method: route.metricsIndex, protocol: rpcProtocol)
        cells.add(cell: base + Self.started, shard: shard)
        return Call(metrics: self, base: base, shard: shard, isUnary: route.handler.kind == .unary,
            started: MonotonicClock.nanoseconds())
    }

    /// The first cell of a method's series in one protocol.
    private static func base(method: Int, protocol rpcProtocol: RPCProtocol) -> Int {
        (method * protocols.count + rpcProtocol.rawValue) * cellsPerMethod
    }

    /// Calls started and not yet finished, by method, in every protocol: the open streams of a streaming method.
    public func inFlight(_ method: MethodDescriptor) -> UInt64 {
        guard let index = methods.firstIndex(where: { $0.descriptor == method }) else { return 0 }
        return Self.protocols.reduce(0) { $0 &+ inFlight(base: Self.base(method: index, protocol: $1)) }
    }

    private func inFlight(base: Int) -> UInt64 {
        let handled = (0..<Self.codes).reduce(UInt64(0)) { $0 &+ cells.total(cell: base + Self.handled + $1) }
        return cells.total(cell: base + Self.started) &- handled
    }

    public func collect(into text: inout PrometheusText) {
        /// Each method in each protocol: its labels and first cell.
        let series = methods.indices.flatMap { index in
            Self.protocols.map { rpcProtocol in
                let method = methods[index]
                let labels: [(key: String, value: String)] = [
                    ("grpc_method", method.descriptor.method), ("grpc_service", method.descriptor.service),
                    ("grpc_type", method.type), ("protocol", rpcProtocol.name),
                ]
                return (labels: labels, base: Self.base(method: index, protocol: rpcProtocol), type: method.type)
            }
        }
        func counter(_ name: String, _ help: String, _ cell: Int) {
            text.family(name, .counter, help: help)
            for one in series {
                text.sample(name, labels: one.labels, Double(cells.total(cell: one.base + cell)))
            }
        }
        counter("grpc_server_started_total", "Total number of RPCs started on the server.", Self.started)
        text.family(
            "grpc_server_handled_total", .counter,
            help: "Total number of RPCs completed on the server, regardless of success or failure.")
        for one in series {
            for code in 0..<Self.codes {
                let value = cells.total(cell: one.base + Self.handled + code)
                text.sample(
                    "grpc_server_handled_total", labels: [("grpc_code", Self.codeNames[code])] + one.labels,
                    Double(value))
            }
        }
        counter("grpc_server_msg_received_total", "Total number of RPC stream messages received on the server.", Self.received)
        counter("grpc_server_msg_sent_total", "Total number of gRPC stream messages sent by the server.", Self.sent)
        text.family(
            "grpc_server_handling_seconds", .histogram,
            help: "Histogram of response latency (seconds) of gRPC that had been application-level handled by the server.")
        for one in series where one.type == "unary" {
            text.histogram(
                "grpc_server_handling_seconds", labels: one.labels, buckets: Self.buckets,
                counts: (0..<Self.buckets.count).map { cells.total(cell: one.base + Self.bucketCells + $0) },
                sum: Double(cells.total(cell: one.base + Self.sumCell)) / 1e9)
        }
        text.family("entitlementd_open_streams", .gauge, help: "Streaming calls open now, by method and protocol.")
        for one in series where one.type != "unary" {
            text.sample("entitlementd_open_streams", labels: one.labels, Double(inFlight(base: one.base)))
        }
    }
}
