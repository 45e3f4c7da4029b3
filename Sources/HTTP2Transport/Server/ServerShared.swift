import HTTP1
import Metrics
import RPCCore
import TransportTLS

/// What every connection of a server reads: routes, limits, logging. Immutable once the server starts.
final class ServerShared: Sendable {
    let configuration: HTTP2ServerConfiguration
    let router: RPCRouter
    let httpRouter: HTTPRouter
    let logger: Logger
    let tls: TLSContext?
    /// Encodings a client may compress requests with, besides identity.
    let decompressors: [String: any MessageDecompressor]
    let acceptEncoding: String
    /// `:status`, `content-type` and `grpc-accept-encoding`, built once for every response.
    let grpcResponseHeaders: HeaderList
    /// Sharded by event loop (``EventLoop/index``).
    let grpcMetrics: GRPCServerMetrics
    let admission: ConnectionAdmission
    /// Completed TLS handshakes: series 0 full, series 1 resumed from a session ticket.
    let tlsHandshakes = CounterFamily(
        "entitlementd_tls_handshakes_total",
        help: "Completed TLS handshakes: full (certificate and signature) or resumed from a session ticket.",
        labels: ["kind"], series: [["full"], ["resumed"]])

    init(
        configuration: HTTP2ServerConfiguration, router: RPCRouter, httpRouter: HTTPRouter, logger: Logger,
        tls: TLSContext?, loops: Int
    ) {
        self.configuration = configuration
        self.router = router
        self.httpRouter = httpRouter
        self.logger = logger
        self.tls = tls
        self.decompressors = ["gzip": GzipDecompressor()]
        self.acceptEncoding = "identity,gzip"
        self.grpcResponseHeaders = .grpcResponse(acceptEncoding: acceptEncoding)
        self.grpcMetrics = GRPCServerMetrics(router: router, shards: loops)
        self.admission = ConnectionAdmission(
            maxConnections: configuration.maxConnections,
            maxConnectionsPerAddress: configuration.maxConnectionsPerAddress,
            trustedProxies: configuration.trustedProxies, logger: logger)
    }
}
