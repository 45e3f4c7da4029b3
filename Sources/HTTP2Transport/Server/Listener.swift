import Glibc
import PosixIO

/// Accepts connections for one event loop from the server's listening socket, and owns them until they close.
///
/// Every loop watches the same socket with EPOLLEXCLUSIVE, so a new connection wakes one loop, which accepts it.
final class Listener: FileEventHandler {
    private let fd: Int32
    private let loop: EventLoop
    private let shared: ServerShared
    private var connections: [ObjectIdentifier: SocketConnection] = [:]
    private var draining = false
    private var onDrained: (() -> Void)?

    init(fd: Int32, loop: EventLoop, shared: ServerShared) {
        self.fd = fd
        self.loop = loop
        self.shared = shared
    }

    func start() {
        loop.registerShared(fd, handler: self)
    }

    func handleEvent(readable: Bool, writable: Bool, hangup: Bool) {
        while !draining, let (clientFD, address, peer) = Socket.accept(fd) {
            guard shared.admission.admit(address: address) == nil else {
                close(clientFD)
                continue
            }
            let connection = SocketConnection(
                fd: clientFD, loop: loop, peer: peer, tls: nil, idleTimeout: shared.configuration.idleTimeout)
            connection.firstHeadTimeout = shared.configuration.requestHeadTimeout
            let sniffer = ProtocolSniffer(socket: connection, shared: shared)
            connection.protocolHandler = sniffer
            if let context = shared.tls {
                connection.tlsToSniff = context
                connection.allowsCleartext = shared.configuration.allowCleartext
                connection.onHandshakeCompleted = { [unowned sniffer] session in sniffer.tlsEstablished(session) }
            }
            connection.onClose = { [unowned self] closed in
                self.shared.admission.release(address: address)
                self.connections[ObjectIdentifier(closed)] = nil
                self.reportIfDrained()
            }
            connections[ObjectIdentifier(connection)] = connection
            connection.start()
        }
    }

    /// Stops accepting (then calls `stoppedListening`), asks every connection to finish, and calls `drained` once
    /// none is left.
    func drain(gracePeriod: Duration, stoppedListening: () -> Void, drained: @escaping () -> Void) {
        draining = true
        onDrained = drained
        loop.unregister(fd)
        stoppedListening()
        for connection in connections.values {
            connection.protocolHandler?.beginGracefulShutdown()
            connection.scheduleFlush()
        }
        // Whatever is still open a little after the grace period is cut off.
        loop.scheduleTimer(after: gracePeriod + .seconds(1)) { [weak self] in
            guard let self else { return }
            for connection in Array(self.connections.values) { connection.close() }
        }
        reportIfDrained()
    }

    private func reportIfDrained() {
        guard draining, connections.isEmpty, let onDrained else { return }
        self.onDrained = nil
        onDrained()
    }
}
