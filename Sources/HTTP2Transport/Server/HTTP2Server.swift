import Dispatch
import Glibc
public import HTTP1
public import PosixIO
import Synchronization
import TransportTLS
public import Metrics
public import RPCCore

/// The gRPC and HTTP server: HTTP/2 (h2c with prior knowledge, or TLS with ALPN) and HTTP/1.1 on one port.
///
/// Each event-loop thread owns a listening socket (SO_REUSEPORT) and the connections it accepts; handlers run as
/// Swift tasks and hand their output back to the owning loop.
public final class HTTP2Server: Sendable {
    private let shared: ServerShared
    private let loops: [EventLoop]
    private let state = Mutex(State())
    private let stopped = DispatchSemaphore(value: 0)

    private struct State {
        var listeners: [LoopBound<Listener>] = []
        var listenFD: Int32 = -1
        var loopsListening = 0
        var localPort = 0
        var shuttingDown = false
        var loopsDraining = 0
    }

    public init(
        configuration: HTTP2ServerConfiguration, router: RPCRouter, httpRouter: HTTPRouter, logger: Logger
    ) throws(TransportError) {
        let tls = try configuration.tls.map { tls throws(TransportError) in try tls.makeContext() }
        let threads = configuration.eventLoopThreads > 0 ? configuration.eventLoopThreads : Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        var loops: [EventLoop] = []
        for index in 0..<max(1, threads) { loops.append(try EventLoop(index: index)) }
        self.loops = loops
        shared = ServerShared(
            configuration: configuration, router: router, httpRouter: httpRouter, logger: logger, tls: tls,
            loops: loops.count)
    }

    /// The standard gRPC server metrics of every call this server serves.
    public var grpcMetrics: GRPCServerMetrics { shared.grpcMetrics }

    /// Open connections, and those refused at accept or cut off for a slow request head.
    public var connectionAdmission: ConnectionAdmission { shared.admission }

    /// Completed TLS handshakes, full or resumed.
    public var tlsHandshakes: CounterFamily { shared.tlsHandshakes }

    /// How late each loop ran a timer due every second (``EventLoopLagProbe``), every loop's in one histogram.
    public let eventLoopLag = Histogram(
        "entitlementd_event_loop_lag_seconds",
        help: "How late an event loop ran a timer due every second: time its thread spent on other work.",
        buckets: .fine)

    /// The bound port (useful when the configuration asked for port 0).
    public var localPort: Int { state.withLock { $0.localPort } }

    /// Binds the listening socket and starts every loop serving it.
    public func start() throws(TransportError) {
        let configuration = shared.configuration
        start(listening: try ListeningSocket(host: configuration.host, port: configuration.port))
    }

    /// Starts every loop serving `socket`, bound beforehand.
    public func start(listening socket: consuming ListeningSocket) {
        let fd = socket.take()
        var listeners: [LoopBound<Listener>] = []
        for (index, loop) in loops.enumerated() {
            let listener = Listener(fd: fd, loop: loop, shared: shared)
            loop.start(name: "entitlementd-loop-\(index)")
            loop.execute { [eventLoopLag] in EventLoopLagProbe.start(on: loop, into: eventLoopLag) }
            let bound = LoopBound(listener, loop: loop)
            bound.execute { $0.start() }
            listeners.append(bound)
        }
        state.withLock {
            $0.listeners = listeners
            $0.listenFD = fd
            $0.localPort = Socket.localPort(fd)
        }
    }

    /// Stops accepting, sends GOAWAY, lets in-flight calls finish within the grace period, then stops.
    public func beginGracefulShutdown() {
        let listeners = state.withLock { state -> [LoopBound<Listener>]? in
            guard !state.shuttingDown else { return nil }
            state.shuttingDown = true
            state.loopsDraining = state.listeners.count
            state.loopsListening = state.listeners.count
            return state.listeners
        }
        guard let listeners else { return }  // already shutting down
        if listeners.isEmpty { stopLoops() }  // never started
        let grace = shared.configuration.shutdownGracePeriod
        for listener in listeners {
            listener.execute { [self] listener in
                listener.drain(
                    gracePeriod: grace, stoppedListening: { self.loopStoppedListening() }, drained: { self.loopDrained() })
            }
        }
    }

    /// Blocks until the server has stopped after ``beginGracefulShutdown()``.
    public func waitUntilStopped() {
        stopped.wait()
        stopped.signal()
    }

    /// Once no loop watches the listening socket it is closed, so new clients are refused at once instead of
    /// waiting in the kernel's backlog for the grace period.
    private func loopStoppedListening() {
        let fd = state.withLock { state -> Int32 in
            state.loopsListening -= 1
            guard state.loopsListening == 0 else { return -1 }
            defer { state.listenFD = -1 }
            return state.listenFD
        }
        if fd >= 0 { close(fd) }
    }

    private func loopDrained() {
        let allDrained = state.withLock { state -> Bool in
            state.loopsDraining -= 1
            return state.loopsDraining == 0
        }
        if allDrained { stopLoops() }
    }

    private func stopLoops() {
        let fd = state.withLock { state in
            defer { state.listenFD = -1 }
            return state.listenFD
        }
        if fd >= 0 { close(fd) }
        for loop in loops { loop.stop() }
        stopped.signal()
    }
}
