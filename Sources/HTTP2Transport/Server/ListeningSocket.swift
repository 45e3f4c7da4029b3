#if canImport(Glibc)
import Glibc
public import PosixIO
#endif

/// A TCP socket bound and listening, not yet served. A server binds it first thing at startup, so that an address in
/// use is reported before anything slow or with effects (opening a database) has happened; connections that arrive
/// before ``HTTP2Server/start(listening:)`` wait in the kernel's backlog. Closed when dropped, unless a server took it.
public struct ListeningSocket: ~Copyable, Sendable {
    private let fd: Int32
    /// The bound port: the one asked for, or the one the kernel picked for port 0.
    public let port: Int

    public init(host: String, port: Int) throws(TransportError) {
        fd = try Socket.listen(host: host, port: port)
        self.port = Socket.localPort(fd)
    }

    /// The descriptor, for the server that serves it from now on (and closes it).
    consuming func take() -> Int32 {
        let fd = self.fd
        discard self
        return fd
    }

    deinit { close(fd) }
}
