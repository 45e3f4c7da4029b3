import HTTP1
public import PosixIO
import Synchronization
import TransportTLS
public import RPCCore

/// A gRPC client over one HTTP/2 connection (h2c or TLS), made on first use and remade after it closes.
///
/// The connection lives on the client's own event-loop thread; calls may be started from any task.
public final class GRPCClient: Sendable {
    private let configuration: GRPCClientConfiguration
    private let loop: EventLoop
    private let tls: TLSContext?
    private let manager: LoopBound<ConnectionManager>

    public init(configuration: GRPCClientConfiguration) throws(TransportError) {
        self.configuration = configuration
        tls = try configuration.tls.map { tls throws(TransportError) in
            try TLSContext(clientTrusting: tls.trustedCertificatesPath)
        }
        loop = try EventLoop()
        loop.start(name: "entitlementd-client")
        manager = LoopBound(ConnectionManager(configuration: configuration, tls: tls, loop: loop), loop: loop)
    }

    deinit {
        let manager = self.manager
        manager.execute { $0.close() }
        loop.stop()
    }

    /// Starts a call sending one request message; iterate the result for responses.
    public func call(
        path: String, request: [UInt8], metadata: Metadata = Metadata(), timeout: Duration? = nil
    ) -> GRPCClientCall {
        let manager = self.manager
        let holder = CallHolder()
        let call = GRPCClientCall { manager.execute { if let call = holder.call { $0.cancel(call) } } }
        holder.call = call
        manager.execute { $0.start(call, path: path, request: request, metadata: metadata, timeout: timeout) }
        return call
    }

    /// Closes the connection once its calls have finished.
    public func close() {
        manager.execute { $0.close() }
    }
}

/// Breaks the cycle between a call and its cancel action.
private final class CallHolder: Sendable {
    private let storage = Mutex<GRPCClientCall?>(nil)
    var call: GRPCClientCall? {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}

/// Loop-side owner of the client's current connection.
final class ConnectionManager {
    private let configuration: GRPCClientConfiguration
    private let tls: TLSContext?
    private let loop: EventLoop
    private var connection: HTTP2ClientConnection?
    private var socket: SocketConnection?

    init(configuration: GRPCClientConfiguration, tls: TLSContext?, loop: EventLoop) {
        self.configuration = configuration
        self.tls = tls
        self.loop = loop
    }

    func start(_ call: GRPCClientCall, path: String, request: [UInt8], metadata: Metadata, timeout: Duration?) {
        do {
            try connect().start(call, path: path, request: request, metadata: metadata, timeout: timeout)
        } catch {
            let failure = ClientConnectionFailure(
                connecting: error, address: ListenAddress.format(host: configuration.host, port: configuration.port))
            call.complete(RPCStatus(code: .unavailable, message: failure.description), cause: failure)
        }
    }

    func cancel(_ call: GRPCClientCall) {
        connection?.cancel(call)
    }

    func close() {
        connection?.close()
        connection = nil
    }

    private func connect() throws(TransportError) -> HTTP2ClientConnection {
        if let connection, connection.isAvailable { return connection }
        let fd = try Socket.connect(host: configuration.host, port: configuration.port)
        let stream = try tls.map { context throws(TransportError) in
            try TLSStream(context: context, fd: fd, serverName: configuration.tls?.serverName ?? configuration.host)
        }
        let socket = SocketConnection(
            fd: fd, loop: loop, peer: "\(configuration.host):\(configuration.port)", tls: stream, idleTimeout: nil)
        let connection = try HTTP2ClientConnection(socket: socket, configuration: configuration)
        socket.protocolHandler = connection
        socket.start()
        socket.scheduleFlush()
        self.socket = socket
        self.connection = connection
        return connection
    }
}
