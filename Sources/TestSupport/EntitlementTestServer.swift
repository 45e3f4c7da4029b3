public import EntitlementDomain
public import EntitlementServices
public import EntitlementStorage
import EntitlementServer
import Foundation
public import Metrics
import Synchronization
public import HTTP1
public import HTTP2Transport
public import RPCCore

/// A real entitlementd in this process: its services as ``ServerWiring`` makes them for `entitlementd` (Health,
/// EntitlementService, AdminService, reflection, the HTTP routes) on a free loopback port, over a fresh SQLite database
/// in a temporary directory, with a running expiry scheduler and two tenants built in code.
///
/// Call ``stop()`` when done, after cancelling open streams.
/// Clients are made by the test targets (TestSupport does not depend on EntitlementClient):
/// `EntitlementClient(configuration: server.clientConfiguration, apiKey: key)`.
public final class EntitlementTestServer: Sendable {
    /// One tenant and the plaintext keys that authenticate as it.
    public struct TenantKeys: Sendable {
        public let tenant: Tenant
        public let publicKey: String
        public let secretKey: String
        public var id: String { tenant.id }
    }

    /// Entitlements both tenants declare: `pro`, `plus`, and `premium` through the product `com.example.premium`.
    public static let entitlements = ["pro", "plus"]
    public static let products = ["com.example.premium": ["premium"]]

    public let tenantA: TenantKeys
    public let tenantB: TenantKeys
    public let repository: SQLRepository
    public let engine: CustomerEngine
    public let scheduler: ExpiryScheduler
    public let tenants: TenantRegistry
    public let streamLimits: StreamLimits
    /// What the server's `/metrics` shows (the current listener's gRPC metrics included).
    public let metrics: MetricsRegistry
    /// The listener; ``restart()`` replaces it.
    public var server: RunningServer { running.withLock { $0 } }
    private let running: Mutex<RunningServer>
    private let routers: (rpc: RPCRouter, http: HTTPRouter)
    /// The plain-HTTP routes, for requests made in-process (a peer address a loopback test cannot have).
    public var httpRouter: HTTPRouter { routers.http }
    /// The temporary directory holding the database; removed by ``stop()``.
    public let directory: String

    public var port: Int { server.port }
    public var hub: StatusHub { engine.hub }

    /// - Parameters:
    ///   - maxStreamsPerConnection: ``StreamLimits`` of the EntitlementService.
    ///   - maxStreamsPerCustomer: the hub's per-customer limit.
    ///   - maxPendingUpdates: how many updates a stream that is not reading holds before they are folded.
    ///   - replayLimit: how many versions back `after_version` may resume from the log.
    public init(
        maxStreamsPerConnection: Int = 100, maxStreamsPerCustomer: Int = 16, maxPendingUpdates: Int = 8,
        replayLimit: Int = 1000, clock: any DomainClock = SystemClock(), logLevel: Logger.Level = .warning
    ) throws {
        directory = NSTemporaryDirectory() + "entitlementd-itest-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        repository = try TestDatabase.repository(sqlitePath: directory + "/entitlements.sqlite")

        func makeTenant(_ id: String) throws -> TenantKeys {
            let publicKey = APIKey.generate(.publicKey)
            let secretKey = APIKey.generate(.secretKey)
            let tenant = try Tenant(
                id: id, publicKeyHashes: [APIKey.hashString(publicKey)!], secretKeyHashes: [APIKey.hashString(secretKey)!],
                entitlements: Self.entitlements, products: Self.products)
            return TenantKeys(tenant: tenant, publicKey: publicKey, secretKey: secretKey)
        }
        tenantA = try makeTenant("tenant-a")
        tenantB = try makeTenant("tenant-b")
        tenants = TenantRegistry(try TenantDirectory(tenants: [tenantA.tenant, tenantB.tenant]))

        // The services as entitlementd wires them (App Store parts, reflection and HTTP routes included).
        let wiring = ServerWiring(
            repository: repository, tenants: tenants,
            logger: Logger(label: "entitlement-test-server", minimumLevel: logLevel),
            clock: clock,
            limits: ServerWiring.Limits(
                maxStreamsPerConnection: maxStreamsPerConnection, maxStreamsPerCustomer: maxStreamsPerCustomer,
                maxPendingUpdates: maxPendingUpdates, replayLimit: replayLimit))
        engine = wiring.engine
        scheduler = wiring.scheduler
        streamLimits = wiring.streamLimits
        metrics = wiring.metrics
        scheduler.start()
        do {
            routers = (wiring.router, wiring.httpRouter)
            let server = try RunningServer(router: wiring.router, httpRouter: wiring.httpRouter)
            metrics.set(server.server.grpcMetrics, key: "grpc")
            running = Mutex(server)
        } catch {
            scheduler.stop()
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    /// Where a client connects (h2c on loopback).
    public var clientConfiguration: GRPCClientConfiguration {
        GRPCClientConfiguration(host: "127.0.0.1", port: server.port)
    }

    /// Stops the listener (streams end as at a shutdown, connections close) and starts a new one on the same port
    /// over the same database, as a restarted server would be.
    public func restart() async throws {
        let old = server
        old.stop()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            // Waiting blocks, so not on a cooperative thread.
            Thread {
                old.server.waitUntilStopped()
                done.resume()
            }.start()
        }
        let replacement = try RunningServer(router: routers.rpc, httpRouter: routers.http) { $0.port = old.port }
        metrics.set(replacement.server.grpcMetrics, key: "grpc")
        running.withLock { $0 = replacement }
    }

    /// Begins the server's graceful shutdown (``RunningServer/stop()`` does not wait for it), stops the scheduler
    /// and removes the database directory.
    public func stop() {
        server.stop()
        scheduler.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
