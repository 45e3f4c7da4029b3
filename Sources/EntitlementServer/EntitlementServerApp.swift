import Dispatch
import FileAccess
public import EntitlementDomain
public import EntitlementServices
import EntitlementStorage
public import HTTP1
import HTTP2Transport
public import PosixIO
public import Metrics
public import RPCCore
public import StandardServices
import Synchronization
import TenantConfiguration
import OutboundHTTP

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
public import Darwin
#endif

/// The `entitlementd` process: gRPC services, plain-HTTP probes and the transport, wired from a ``ServerConfig``.
///
/// Serves `grpc.health.v1.Health`, server reflection (v1 and v1alpha) and any extra services over gRPC, plus
/// `GET /healthz` (200 while the process runs) and `GET /readyz` (200 while serving and the database answers, 503
/// naming the failed check otherwise; see `ReadinessCheck`).
/// ``run()`` serves until SIGTERM or SIGINT, then drains gracefully.
public final class EntitlementServerApp: Sendable {
    public let config: ServerConfig
    public let health: HealthService
    public let router: RPCRouter
    public let httpRouter: HTTPRouter
    public let logger: Logger
    public let engine: CustomerEngine
    public let tenants: TenantRegistry
    /// What `/metrics` shows.
    public let metrics: MetricsRegistry

    private let expiryScheduler: ExpiryScheduler
    /// Google Play's acknowledger and voided-purchases poll.
    private let background: ServerWiring.BackgroundWork
    /// On PostgreSQL: the versions other instances commit, and what hands them to the engine.
    private let changeFeed: (feed: PostgresChangeFeed, versions: AsyncStream<[CommittedVersion]>)?
    private let readiness: Readiness
    private let memoryReturn: MemoryReturn
    private let server = Mutex<HTTP2Server?>(nil)
    /// The main and `[metrics] listen` sockets, bound first thing (``ListeningSocket``) and served by ``start()``.
    private let mainSocket: Mutex<ListeningSocket?>
    private let metricsSocket: Mutex<ListeningSocket?>
    /// The `[metrics] listen` listener, when configured.
    private let metricsServer = Mutex<HTTP2Server?>(nil)
    private let signalsReceived = Atomic<Int>(0)

    /// Binds the listening sockets, then opens the database, loads the tenants and wires every service; fails with a
    /// message naming what is wrong.
    ///
    /// Call it from the main thread before any other thread exists: it blocks the signals ``run()`` handles first, so
    /// that every thread started from here on (the logger's, the event loops, the outbound client's) inherits the mask
    /// and a signal reaches the dispatch sources instead of one of them, where SIGHUP's default action would end the
    /// process.
    public init(config: ServerConfig, extraServices: [any RPCService] = []) throws(StartupError) {
        Self.blockHandledSignals()
        self.config = config
        logger = Logger(label: "entitlementd", minimumLevel: config.logLevel, format: config.logFormat)
        // Bound before the database is opened, so that an address in use is reported before anything has happened.
        mainSocket = Mutex(try Self.bind(config.listenAddress, setBy: "--listen HOST:PORT or [server] listen"))
        if let address = config.metricsListenAddress {
            metricsSocket = Mutex(try Self.bind(address, setBy: "[metrics] listen"))
        } else {
            metricsSocket = Mutex(nil)
        }
        // Before the connection limit is derived from it (`max_connections` 0); logged once the server has loaded.
        let descriptors = DescriptorLimit.raise()

        let repository: SQLRepository
        let databaseDescription: String
        if let postgres = config.postgres {
            databaseDescription = "postgres:" + postgres.redacted
            do {
                repository = try PostgresRepository(
                    conninfo: postgres.conninfo,
                    options: .init(maxConnections: postgres.maxConnections, sessionTimeouts: postgres.sessionTimeouts))
            } catch {
                throw StartupError(message: "cannot open the PostgreSQL database '\(postgres.redacted)': \(error)")
            }
        } else {
            databaseDescription = config.databasePath
            do {
                repository = try SQLiteRepository(path: config.databasePath)
            } catch {
                throw StartupError(message: "cannot open the database '\(config.databasePath)': \(error)")
            }
        }
        let directory: TenantDirectory
        if let path = config.tenantsPath {
            do {
                directory = try TenantConfigLoader.load(path: path)
            } catch {
                throw StartupError(message: "\(error)")
            }
        } else {
            directory = try! TenantDirectory(tenants: [])
            logger.warning("no [storage] tenants file configured: every entitlement call will be refused")
        }
        for warning in Self.warnings(for: directory) { logger.warning(warning) }
        logger.info(
            "loaded",
            ["database": databaseDescription, "tenants_file": config.tenantsPath ?? "none",
             "tenants": String(directory.tenants.count)])
        if let descriptors {
            logger.info(
                "file descriptors",
                ["limit": String(descriptors.after), "raised_from": String(descriptors.before),
                 "hard_limit": String(descriptors.hard)])
        }
        let tenants = TenantRegistry(directory)
        let readiness = Readiness()
        let outbound: OutboundHTTPClient
        do throws(OutboundHTTPError) {
            outbound = try OutboundHTTPClient(
                configuration: .init(
                    trustedCertificatesPath: config.outboundTrustedCertificatesPath, attemptTimeout: config.outboundTimeout,
                    retry: RetryPolicy(maxAttempts: config.outboundMaxAttempts)))
        } catch {
            throw StartupError(message: "[outbound_http]: \(error.message)")
        }
        let demoPage: StaticFiles?
        do throws(FileSystemError) {
            demoPage = try config.demoPageDirectory.map { path throws(FileSystemError) in try StaticFiles(directory: path) }
        } catch {
            throw StartupError(message: "[demo_page] directory: \(error)")
        }
        let adminConsole: StaticFiles?
        do throws(FileSystemError) {
            adminConsole = try config.adminConsoleDirectory.map(AdminConsole.files)
        } catch {
            throw StartupError(message: "[admin_console] directory: \(error)")
        }
        let wiring = ServerWiring(
            repository: repository, tenants: tenants, logger: logger,
            limits: ServerWiring.Limits(
                maxStreamsPerConnection: config.maxStreamsPerConnection,
                maxStreamsPerCustomer: config.maxStreamsPerCustomer, grpcWebHeartbeatInterval: config.grpcWebHeartbeat,
                maxWriteGroup: config.maxWriteGroup, writeLanes: config.postgres?.writeLanes ?? 1,
                snapshotReads: config.snapshotReads),
            trustedProxies: config.trustedProxies, outbound: outbound,
            playAcknowledgements: PlayAcknowledger.Schedule(
                firstRetry: config.playAcknowledgementFirstRetry, maxAttempts: config.playAcknowledgementMaxAttempts),
            webhooks: config.webhooks,
            extraServices: extraServices, demoPage: demoPage, adminConsole: adminConsole, isDraining: { readiness.isDraining },
            servesMetrics: config.metricsListenAddress == nil)
        metrics = wiring.metrics
        background = wiring.background
        memoryReturn = MemoryReturn(hub: wiring.engine.hub)
        let feedLogger = logger
        changeFeed = (repository as? PostgresRepository).map { postgres in
            let (versions, continuation) = AsyncStream<[CommittedVersion]>.makeStream()
            let feed = postgres.changeFeed(deliver: { continuation.yield($0) }, log: { feedLogger.warning($0) })
            return (feed, versions)
        }
        self.tenants = tenants
        engine = wiring.engine
        expiryScheduler = wiring.scheduler
        health = wiring.health
        router = wiring.router
        httpRouter = wiring.httpRouter
        self.readiness = readiness
    }

    /// `address` bound and listening; the error names the setting that chose it.
    private static func bind(_ address: ListenAddress, setBy setting: String) throws(StartupError) -> ListeningSocket {
        do throws(TransportError) {
            return try ListeningSocket(host: address.host, port: address.port)
        } catch {
            guard error.code == .addressInUse else {
                throw StartupError(message: "cannot listen on \(address) (set by \(setting)): \(error)")
            }
            throw StartupError(
                message: "cannot listen on \(address): another process listens there (another entitlementd?); stop it, "
                    + "or choose another address with \(setting)")
        }
    }

    /// Re-reads the tenants file (SIGHUP). A file that does not load leaves the tenants in force and says why;
    /// connections and calls in flight are untouched either way.
    public func reloadTenants() {
        guard let path = config.tenantsPath else { return }
        do {
            let directory = try TenantConfigLoader.load(path: path)
            for warning in Self.warnings(for: directory) { logger.warning(warning) }
            tenants.replace(with: directory)
            logger.info("reloaded tenants", ["file": path, "tenants": String(directory.tenants.count)])
        } catch {
            logger.error("tenants file not reloaded; keeping the previous tenants", ["error": error.description])
        }
    }

    /// Settings that are allowed but weaken what the server promises.
    static func warnings(for directory: TenantDirectory) -> [String] {
        AppStoreTrustWarnings.messages(for: directory) + PlayStoreWarnings.messages(for: directory)
    }

    /// False once shutdown has begun (`/readyz` answers 503 then).
    public var isReady: Bool { !readiness.isDraining }

    /// Binds and starts serving; returns the bound address (the real port when the configuration asked for 0).
    ///
    /// Logs `listening address=HOST:PORT tls=on|off` and prints `entitlementd listening on HOST:PORT` on standard
    /// output, which tests and scripts read to learn the port.
    @discardableResult
    public func start() throws(TransportError) -> ListenAddress {
        var transport = config.transport
        transport.grpcWebCORS = TenantBrowserOrigins(tenants: tenants, maxAgeSeconds: config.grpcWebCORSMaxAgeSeconds)
        transport.messageSchema = EmbeddedDescriptors.messageSchema
        let server = try HTTP2Server(
            configuration: transport, router: router, httpRouter: httpRouter, logger: logger
        )
        try serve(server, on: mainSocket)
        metrics.set(server.grpcMetrics, key: "grpc")
        metrics.set(server.eventLoopLag, key: "event_loop_lag")
        let admission = server.connectionAdmission
        metrics.set(admission.refusals, key: "connections_refused")
        metrics.set(admission.requestHeadTimeouts, key: "request_head_timeouts")
        if config.transport.tls != nil { metrics.set(server.tlsHandshakes, key: "tls_handshakes") }
        metrics.set(
            GaugeFamily("entitlementd_connections_open", help: "Client connections open now (gRPC, gRPC-Web and HTTP).") {
                Double(admission.openConnections)
            }, key: "connections_open")
        self.server.withLock { $0 = server }
        let metricsAddress = try startMetricsServer()
        // A signal that arrived while binding found no server to stop (and no scheduler to stop: none is started).
        if readiness.isDraining {
            server.beginGracefulShutdown()
        } else {
            expiryScheduler.start()
            background.start()
            memoryReturn.start()
            startChangeFeed()
        }
        let address = ListenAddress(host: config.transport.host, port: server.localPort)
        logger.info(
            "listening",
            [
                "address": address.description, "tls": config.transport.tls == nil ? "off" : "on",
                "instance": engine.instanceID, "metrics": metricsAddress?.description ?? "/metrics, loopback only",
            ]
        )
        EntitlementdCommand.emit("entitlementd listening on \(address)\n", to: STDOUT_FILENO)
        return address
    }

    /// The separate `/metrics` listener (plain HTTP, one event loop), when `[metrics] listen` asks for one.
    private func startMetricsServer() throws(TransportError) -> ListenAddress? {
        guard let address = config.metricsListenAddress else { return nil }
        var transport = HTTP2ServerConfiguration()
        transport.host = address.host
        transport.port = address.port
        transport.eventLoopThreads = 1
        let server = try HTTP2Server(
            configuration: transport, router: RPCRouter(), httpRouter: ServerWiring.metricsRouter(metrics),
            logger: logger)
        try serve(server, on: metricsSocket)
        metricsServer.withLock { $0 = server }
        return ListenAddress(host: address.host, port: server.localPort)
    }

    /// Starts `server` on the socket bound at startup; binds again if that was served already (a second ``start()``).
    private func serve(_ server: HTTP2Server, on socket: borrowing Mutex<ListeningSocket?>) throws(TransportError) {
        if let bound = socket.withLock({ $0.take() }) {
            server.start(listening: bound)
        } else {
            try server.start()
        }
    }

    /// Listens for other instances' commits and applies them, in the order they arrive, to the cache and streams.
    private func startChangeFeed() {
        guard let (feed, versions) = changeFeed else { return }
        feed.start()
        Task { [engine, logger] in
            for await batch in versions {
                for (version, error) in await engine.customers.applyCommittedElsewhere(batch) {
                    logger.warning(
                        "a change another instance committed could not be read",
                        ["tenant": version.tenantID, "customer_id": String(version.customerID), "error": error.description])
                }
            }
        }
    }

    /// Reports `NOT_SERVING` on the health service (Check and Watch) and makes `/readyz` answer 503 while the
    /// server keeps accepting for the drain delay, so load balancers notice; then the transport sends GOAWAY, stops
    /// accepting, ends subscriptions with `UNAVAILABLE` and gives other calls the grace period. Safe to call more
    /// than once.
    public func beginShutdown() {
        guard readiness.beginDraining() else { return }
        let drain = config.shutdownDrainDelay
        logger.info(
            "shutting down: NOT_SERVING, still accepting for the drain delay",
            [
                "drain_delay_seconds": String(drain.components.seconds),
                "grace_period_seconds": String(config.transport.shutdownGracePeriod.components.seconds),
            ]
        )
        health.enterShutdown()
        let milliseconds = Int(drain.components.seconds * 1000 + drain.components.attoseconds / 1_000_000_000_000_000)
        // Not `self`: this block is released on a dispatch thread once it has run, and must not hold the app's last
        // reference then (see `run()`). A server that starts after this point sees `isDraining` and stops itself.
        let transport = server.withLock { $0 }
        let metricsTransport = metricsServer.withLock { $0 }
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(milliseconds)) {
            [logger, expiryScheduler, background, memoryReturn, feed = changeFeed?.feed] in
            logger.info("drain delay over: GOAWAY, no new connections")
            expiryScheduler.stop()
            background.stop()
            memoryReturn.stop()
            feed?.stop()
            transport?.beginGracefulShutdown()
            metricsTransport?.beginGracefulShutdown()
        }
    }

    /// Blocks until the transport has stopped after ``beginShutdown()``; returns at once if it never started.
    public func waitUntilStopped() {
        guard let server = server.withLock({ $0 }) else { return }
        server.waitUntilStopped()
    }

    /// The signals ``run()`` handles: shutdown, and SIGHUP to reload the tenants file.
    private static let handledSignals = [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT"), (SIGHUP, "SIGHUP")]

    private static func blockHandledSignals() {
        signal(SIGPIPE, SIG_IGN)
        var mask = sigset_t()
        sigemptyset(&mask)
        for (number, _) in handledSignals { sigaddset(&mask, number) }
        pthread_sigmask(SIG_BLOCK, &mask, nil)
    }

    /// Starts, serves until SIGTERM or SIGINT, drains, and returns once stopped. A second signal exits at once.
    public func run() throws(TransportError) {
        let queue = DispatchQueue(label: "entitlementd.signals")
        var sources: [any DispatchSourceSignal] = []
        for (number, name) in Self.handledSignals {
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            // Weakly: dispatch releases a cancelled source's handler later, on its queue. A strong reference there
            // could be the app's last one, tearing the app down on that thread while the caller's thread is already in
            // exit(3) (see COpenSSLShims); the caller's reference is the last, so the app goes when the caller drops it.
            source.setEventHandler { [weak self] in self?.handleSignal(name) }
            source.resume()
            sources.append(source)
        }
        defer { for source in sources { source.cancel() } }

        try start()
        waitUntilStopped()
        logger.info("stopped")
    }

    /// The exit status when a second SIGTERM/SIGINT cuts the shutdown short (documented in the README).
    public static let secondSignalExitStatus: Int32 = 1

    private func handleSignal(_ name: String) {
        if name == "SIGHUP" {
            reloadTenants()
            return
        }
        let count = signalsReceived.wrappingAdd(1, ordering: .relaxed).newValue
        if count == 1 {
            logger.info("received signal, draining", ["signal": name])
            beginShutdown()
        } else {
            logger.warning("received a second signal, exiting at once without waiting for calls", ["signal": name])
            exit(Self.secondSignalExitStatus)
        }
    }
}

/// Why the server could not start: the database or the tenants file.
public struct StartupError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

/// Whether the server has begun shutting down; read by the `/readyz` handler on the event loops.
private final class Readiness: Sendable {
    private let draining = Atomic<Bool>(false)

    var isDraining: Bool { draining.load(ordering: .acquiring) }

    /// Marks the server draining; false when it already was.
    func beginDraining() -> Bool {
        !draining.exchange(true, ordering: .acquiringAndReleasing)
    }
}
