public import HTTP1
public import HTTP2Transport
public import RPCCore

/// A real server on a free loopback port, in this process, for tests that go through the network stack.
public final class RunningServer: Sendable {
    public let server: HTTP2Server
    public let port: Int

    public convenience init(
        services: [any RPCService],
        httpRouter: HTTPRouter = HTTPRouter(HTTPRouter.Builder()),
        configure: (inout HTTP2ServerConfiguration) -> Void = { _ in }
    ) throws {
        var router = RPCRouter()
        router.register(services)
        try self.init(router: router, httpRouter: httpRouter, configure: configure)
    }

    /// Serves `router` and `httpRouter` as they are.
    public init(
        router: RPCRouter, httpRouter: HTTPRouter,
        configure: (inout HTTP2ServerConfiguration) -> Void = { _ in }
    ) throws {
        var configuration = HTTP2ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.eventLoopThreads = 2
        configuration.shutdownGracePeriod = .seconds(2)
        configure(&configuration)
        server = try HTTP2Server(
            configuration: configuration, router: router, httpRouter: httpRouter,
            logger: Logger(label: "test-server", minimumLevel: .warning))
        try server.start()
        port = server.localPort
    }

    /// A client of this server; h2c unless `tls` is given.
    public func makeClient(tls: GRPCClientConfiguration.TLS? = nil) throws -> GRPCClient {
        try GRPCClient(configuration: GRPCClientConfiguration(host: "127.0.0.1", port: port, tls: tls))
    }

    /// Begins a graceful shutdown without waiting for it: tests call this from `defer` on Swift's cooperative
    /// threads, and blocking one of those could starve the very handlers the shutdown waits for.
    public func stop() {
        server.beginGracefulShutdown()
    }
}
