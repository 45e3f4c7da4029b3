import Glibc
public import PosixIO
import Synchronization
import TransportTLS

/// How an ``HTTPClient`` connects and what it accepts.
public struct HTTPClientConfiguration: Sendable {
    /// PEM file of the certificates trusted for `https`; nil trusts the system store.
    public var trustedCertificatesPath: String?
    /// Open connections kept per origin between requests.
    public var maxIdleConnectionsPerOrigin = 8
    /// An idle connection older than this is closed instead of reused (servers close theirs after a minute or so).
    public var idleTimeout: Duration = .seconds(50)
    public var maxResponseHeadBytes = 64 * 1024
    public var maxResponseBodyBytes = 16 * 1024 * 1024
    /// Sent unless the request sets its own.
    public var userAgent = "entitlementd"

    public init(trustedCertificatesPath: String? = nil) {
        self.trustedCertificatesPath = trustedCertificatesPath
    }
}

/// An HTTP/1.1 client with TLS (certificates verified, the host name checked, SNI sent) and connections kept
/// open per origin. One request is one attempt: retrying is the caller's policy.
///
/// Connections live on the client's own event-loop thread; requests may be sent from any task.
public final class HTTPClient: Sendable {
    private let loop: EventLoop
    private let pool: LoopBound<HTTPConnectionPool>
    private let exchangeIDs = Atomic<UInt64>(0)
    private let userAgent: String

    public init(configuration: HTTPClientConfiguration = HTTPClientConfiguration()) throws(TransportError) {
        userAgent = configuration.userAgent
        let tls = try TLSContext(clientTrusting: configuration.trustedCertificatesPath, alpn: .http1)
        loop = try EventLoop()
        loop.start(name: "entitlementd-http-client")
        pool = LoopBound(HTTPConnectionPool(configuration: configuration, tls: tls, loop: loop), loop: loop)
    }

    deinit {
        pool.execute { $0.closeAll() }
        loop.stop()
    }

    /// Sends `request` and waits for the whole response, at most `timeout` from now (connecting included).
    public func send(_ request: HTTPClientRequest, timeout: Duration) async throws(HTTPClientError) -> HTTPClientResponse {
        var withAgent = request
        if !request.headers.contains("user-agent") { withAgent.headers.add(name: "user-agent", value: userAgent) }
        let head = try HTTP1RequestSerializer.serialize(withAgent)
        let id = exchangeIDs.add(1, ordering: .relaxed).newValue
        let pool = self.pool
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<HTTPClientResponse, HTTPClientError>, Never>) in
                pool.execute { pool in
                    pool.start(id: id, request: request, bytes: head, timeout: timeout) { continuation.resume(returning: $0) }
                }
            }
        } onCancel: {
            pool.execute { $0.abandon(id: id, with: HTTPClientError(.cancelled, "the request was cancelled")) }
        }
        return try result.get()
    }

    /// Closes every connection; requests in flight fail.
    public func shutdown() {
        pool.execute { $0.closeAll() }
    }
}

/// Where requests go: connections are kept and reused per origin.
struct HTTPClientOrigin: Hashable {
    var scheme: HTTPClientRequest.Scheme
    var host: String
    var port: Int

    var address: String { ListenAddress.format(host: host, port: port) }
}

/// Loop-side: the idle connections per origin, and the exchanges in flight with their deadlines.
final class HTTPConnectionPool {
    private struct InFlight {
        var connection: HTTP1ClientConnection
        var timer: TimerHeap.ID
    }

    private let configuration: HTTPClientConfiguration
    private let tls: TLSContext
    private let loop: EventLoop
    private var idle: [HTTPClientOrigin: [HTTP1ClientConnection]] = [:]
    private var inFlight: [UInt64: InFlight] = [:]
    /// Cancellations that arrived before their exchange started (the handler can run first).
    private var cancelledEarly: Set<UInt64> = []

    init(configuration: HTTPClientConfiguration, tls: TLSContext, loop: EventLoop) {
        self.configuration = configuration
        self.tls = tls
        self.loop = loop
    }

    func start(
        id: UInt64, request: HTTPClientRequest, bytes: [UInt8], timeout: Duration,
        completion: @escaping (Result<HTTPClientResponse, HTTPClientError>) -> Void
    ) {
        if cancelledEarly.remove(id) != nil {
            completion(.failure(HTTPClientError(.cancelled, "the request was cancelled")))
            return
        }
        let origin = HTTPClientOrigin(scheme: request.scheme, host: request.host, port: request.port)
        let connection: HTTP1ClientConnection
        do throws(HTTPClientError) {
            if let reused = idleConnection(to: origin) { connection = reused } else { connection = try connect(to: origin) }
        } catch {
            completion(.failure(error))
            return
        }
        let timer = loop.scheduleTimer(after: timeout) { [weak self] in
            self?.abandon(id: id, with: HTTPClientError(.timedOut, "no complete response from \(origin.address) within \(timeout)"))
        }
        inFlight[id] = InFlight(connection: connection, timer: timer)
        connection.start(bytes, isHead: request.method == "HEAD") { [weak self] result in
            guard let self else { return }
            if let done = self.inFlight.removeValue(forKey: id) {
                self.loop.cancelTimer(done.timer)
                if connection.isIdle { self.keep(connection) }
            }
            completion(result)
        }
    }

    /// Ends an exchange early (its deadline, its caller's cancellation); its connection is closed.
    func abandon(id: UInt64, with error: HTTPClientError) {
        guard let exchange = inFlight[id] else {
            if error.code == .cancelled { cancelledEarly.insert(id) }
            return
        }
        exchange.connection.abandon(with: error)
    }

    func closeAll() {
        for connection in idle.values.joined() { connection.socket.close() }
        idle = [:]
        for exchange in inFlight.values {
            exchange.connection.abandon(with: HTTPClientError(.connectionClosed, "the HTTP client was shut down"))
        }
    }

    private func keep(_ connection: HTTP1ClientConnection) {
        var kept = idle[connection.origin, default: []].filter(\.isIdle)
        guard kept.count < configuration.maxIdleConnectionsPerOrigin else {
            connection.socket.closeGracefully()
            return
        }
        kept.append(connection)
        idle[connection.origin] = kept
    }

    /// The most recently used open connection to `origin` that is young enough to trust.
    private func idleConnection(to origin: HTTPClientOrigin) -> HTTP1ClientConnection? {
        guard var candidates = idle[origin] else { return nil }
        defer { idle[origin] = candidates.isEmpty ? nil : candidates }
        while let connection = candidates.popLast() {
            if connection.isIdle, connection.idleSince.duration(to: .now) < configuration.idleTimeout { return connection }
            connection.socket.close()
        }
        return nil
    }

    private func connect(to origin: HTTPClientOrigin) throws(HTTPClientError) -> HTTP1ClientConnection {
        let fd: Int32
        do {
            fd = try Socket.connect(host: origin.host, port: origin.port)
        } catch {
            throw HTTPClientError(connecting: ClientConnectionFailure(connecting: error, address: origin.address))
        }
        let stream: TLSStream?
        do {
            stream = origin.scheme == .https ? try TLSStream(context: tls, fd: fd, serverName: origin.host) : nil
        } catch {
            Glibc.close(fd)
            throw HTTPClientError(.tlsFailed, "cannot start TLS with \(origin.address): \(error.message)")
        }
        let socket = SocketConnection(fd: fd, loop: loop, peer: origin.address, tls: stream, idleTimeout: nil)
        let limits = HTTP1ResponseParser.Limits(
            maxHeadBytes: configuration.maxResponseHeadBytes, maxBodyBytes: configuration.maxResponseBodyBytes)
        let connection = HTTP1ClientConnection(socket: socket, origin: origin, limits: limits)
        socket.protocolHandler = connection
        socket.onClose = { [weak self] socket in
            guard let self, let list = self.idle[origin] else { return }
            let remaining = list.filter { $0.socket !== socket }
            self.idle[origin] = remaining.isEmpty ? nil : remaining
        }
        socket.start()
        return connection
    }
}
