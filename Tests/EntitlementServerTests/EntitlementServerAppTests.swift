import Foundation
import HTTP1
import HTTP2Transport
import PosixIO
import RPCCore
import StandardServices
import Testing

@testable import EntitlementServer

/// Serialized: the tests block on sockets in synchronous code, and two of them at once would hold both threads of
/// Swift's cooperative pool on a 2-core machine, starving the server's own HTTP handlers.
@Suite("EntitlementServerApp", .serialized)
struct EntitlementServerAppTests {
    private func testConfig() -> ServerConfig {
        var transport = HTTP2ServerConfiguration()
        transport.host = "127.0.0.1"
        transport.port = 0
        transport.eventLoopThreads = 1
        transport.shutdownGracePeriod = .seconds(2)
        let database = FileManager.default.temporaryDirectory.appendingPathComponent("app-\(UUID().uuidString).sqlite")
        var config = ServerConfig(transport: transport, databasePath: database.path, logLevel: .warning)
        config.shutdownDrainDelay = .zero
        return config
    }

    private struct ExtraService: RPCService {
        func register(on router: inout RPCRouter) {
            router.register(
                MethodDescriptor(service: "test.Extra", method: "Noop"),
                RPCHandler(kind: .unary) { _, _ in }
            )
        }
    }

    @Test("serves health, both reflection versions and the extra services")
    func services() throws {
        let app = try EntitlementServerApp(config: testConfig(), extraServices: [ExtraService()])
        #expect(
            app.router.serviceNames == [
                HealthService.serviceName, ReflectionService.v1ServiceName, ReflectionService.v1alphaServiceName,
                "entitlements.v1.EntitlementService", "entitlements.v1.AdminService", "test.Extra",
            ]
        )
        #expect(app.router.handler(forPath: "/grpc.health.v1.Health/Check") != nil)
        #expect(app.router.handler(forPath: "/test.Extra/Noop") != nil)
    }

    @Test("/healthz and /readyz answer 200, then health turns NOT_SERVING and /readyz 503 on shutdown")
    func probesAcrossShutdown() async throws {
        let app = try EntitlementServerApp(config: testConfig())
        let healthz = await app.httpRouter.respond(to: HTTPRequest(method: "GET", target: "/healthz"))
        #expect(healthz.status == 200)
        #expect(String(decoding: healthz.body, as: UTF8.self) == "ok\n")
        #expect(await app.httpRouter.respond(to: HTTPRequest(method: "GET", target: "/readyz")).status == 200)
        #expect(app.health.status(forService: "") == .serving)
        #expect(app.isReady)

        app.beginShutdown()
        app.beginShutdown()  // idempotent

        #expect(!app.isReady)
        #expect(app.health.status(forService: "") == .notServing)
        #expect(await app.httpRouter.respond(to: HTTPRequest(method: "GET", target: "/readyz")).status == 503)
        #expect(await app.httpRouter.respond(to: HTTPRequest(method: "GET", target: "/healthz")).status == 200)
        app.waitUntilStopped()  // never started: returns at once
    }

    @Test("binds a free port, answers /healthz over the network, and stops gracefully")
    func startAndStop() throws {
        let app = try EntitlementServerApp(config: testConfig())
        let address = try app.start()
        #expect(address.host == "127.0.0.1")
        #expect(address.port > 0)

        let healthz = try httpGet(port: address.port, path: "/healthz")
        #expect(healthz.hasPrefix("HTTP/1.1 200"), "\(healthz)")
        #expect(healthz.hasSuffix("\r\n\r\nok\n"), "\(healthz)")
        let readyz = try httpGet(port: address.port, path: "/readyz")
        #expect(readyz.hasPrefix("HTTP/1.1 200"), "\(readyz)")
        let missing = try httpGet(port: address.port, path: "/nope")
        #expect(missing.hasPrefix("HTTP/1.1 404"), "\(missing)")

        app.beginShutdown()
        app.waitUntilStopped()
        #expect(throws: (any Error).self) { try httpGet(port: address.port, path: "/healthz") }
    }

    @Test("during the drain delay the server still accepts and serves, with /readyz 503; then it stops")
    func drainDelayKeepsAccepting() throws {
        var config = testConfig()
        config.shutdownDrainDelay = .seconds(1)
        let app = try EntitlementServerApp(config: config)
        let address = try app.start()
        let started = ContinuousClock.now
        app.beginShutdown()
        // A new connection during the delay is accepted and answered.
        #expect(try httpGet(port: address.port, path: "/healthz").hasPrefix("HTTP/1.1 200"))
        #expect(try httpGet(port: address.port, path: "/readyz").hasPrefix("HTTP/1.1 503"))
        #expect(app.health.status(forService: "") == .notServing)
        app.waitUntilStopped()
        #expect(started.duration(to: .now) >= .seconds(1))
        #expect(throws: (any Error).self) { try httpGet(port: address.port, path: "/healthz") }
    }

    /// Binding comes first, before the database is opened: the error names the address and the settings that choose it.
    @Test("a port already in use is a clear start error, before the database is opened")
    func addressInUse() throws {
        let (holder, port) = try listeningSocket()
        defer { close(holder) }
        var config = testConfig()
        config.transport.port = port
        do {
            let app = try EntitlementServerApp(config: config)
            try app.start()
            app.beginShutdown()
            app.waitUntilStopped()
            Issue.record("binding a used port should fail")
        } catch {
            #expect(
                "\(error)" == "cannot listen on 127.0.0.1:\(port): another process listens there (another entitlementd?); "
                    + "stop it, or choose another address with --listen HOST:PORT or [server] listen")
        }
        #expect(!FileManager.default.fileExists(atPath: config.databasePath))
    }
}

/// A plain listening socket on a free loopback port (no SO_REUSEPORT), to occupy it.
private func listeningSocket() throws -> (Int32, Int) {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw POSIXError(.EIO) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
            bind(descriptor, pointer, length) == 0 && listen(descriptor, 1) == 0
                && getsockname(descriptor, pointer, &length) == 0
        }
    }
    guard bound else {
        close(descriptor)
        throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
    return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
}

/// A one-shot HTTP/1.1 GET on loopback; the whole response, head and body.
private func httpGet(port: Int, path: String) throws -> String {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw POSIXError(.EIO) }
    defer { close(descriptor) }
    var timeout = timeval(tv_sec: 30, tv_usec: 0)
    setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))

    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard connected == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }

    let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
    guard send(descriptor, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else {
        throw POSIXError(.EIO)
    }
    var response: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = recv(descriptor, &buffer, buffer.count, 0)
        if count < 0 { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        if count == 0 { break }
        response += buffer[0..<count]
    }
    return String(decoding: response, as: UTF8.self)
}
