import Metrics
import PosixIO

/// Decides what a connection speaks from its first bytes: the HTTP/2 preface or HTTP/1.1.
///
/// On TLS connections it looks at the decrypted bytes, unless ALPN already settled the protocol.
final class ProtocolSniffer: ConnectionProtocol {
    private unowned let socket: SocketConnection
    private let shared: ServerShared
    private var buffered: [UInt8] = []
    private static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    init(socket: SocketConnection, shared: ServerShared) {
        self.socket = socket
        self.shared = shared
    }

    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        buffered.append(contentsOf: bytes)
        guard buffered.count >= 4 else { return true }
        return switchTo(buffered.starts(with: Self.preface[0..<4]) ? .http2 : .http1)
    }

    /// Counts the handshake; when ALPN picked `h2`, there is no need to look at the bytes.
    func tlsEstablished(_ session: any SocketEncryption) {
        shared.tlsHandshakes.increment(session.sessionReused ? 1 : 0)
        if session.negotiatedProtocol == "h2" { _ = switchTo(.http2) }
    }

    func produceOutput(into buffer: inout [UInt8]) {}
    var isFinished: Bool { false }
    func connectionClosed() {}
    func beginGracefulShutdown() { socket.close() }

    /// The TLS handshake, or the first bytes that tell the protocol, took too long.
    func firstHeadDeadlinePassed() {
        shared.admission.countRequestHeadTimeout(.handshake)
        socket.close()
    }

    enum Kind { case http1, http2 }

    /// Installs the protocol and replays what was read so far into it.
    func switchTo(_ kind: Kind) -> Bool {
        let next: any ConnectionProtocol
        switch kind {
        case .http2:
            guard let connection = try? HTTP2ServerConnection(socket: socket, shared: shared) else { return false }
            next = connection
        case .http1:
            next = HTTP1ServerConnection(socket: socket, shared: shared)
        }
        socket.protocolHandler = next
        socket.cancelFirstHeadDeadline()
        let replay = buffered
        buffered = []
        return replay.isEmpty || replay.withUnsafeBytes { next.receive($0) }
    }
}
