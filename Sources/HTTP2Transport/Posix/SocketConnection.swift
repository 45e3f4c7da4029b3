import Glibc

/// The protocol spoken on a connection once it is known: HTTP/2, HTTP/1.1, or the sniffer deciding between them.
protocol ConnectionProtocol: AnyObject {
    /// Consumes bytes from the peer; false closes the connection at once.
    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool
    /// Appends output that is ready to go.
    func produceOutput(into buffer: inout [UInt8])
    /// True once nothing more will be sent or received; the connection closes after its output is written.
    var isFinished: Bool { get }
    /// The socket is gone: release everything, cancel every call.
    func connectionClosed()
    /// Stop taking new work; finish what is in flight.
    func beginGracefulShutdown()
}

/// A non-blocking socket, optionally TLS, owned by one event loop, with a pluggable protocol on top.
final class SocketConnection: FileEventHandler, EndOfTickTask {
    let fd: Int32
    let loop: EventLoop
    let peer: String
    var tls: TLSStream?
    var protocolHandler: (any ConnectionProtocol)?
    /// Called once when the connection closes, to let its owner forget it.
    var onClose: ((SocketConnection) -> Void)?
    /// Connections whose protocol does its own liveness checks (HTTP/2 keepalive) set this to nil.
    var idleTimeout: Duration?
    /// Set on a server that accepts TLS: the first byte tells whether the client starts a handshake.
    var tlsContextToSniff: TLSContext?
    /// Whether a client that does not start TLS may continue in cleartext.
    var allowsCleartext = true
    /// Called once the TLS handshake completes, with the ALPN protocol.
    var onHandshakeCompleted: ((String?) -> Void)?

    private var outbound: [UInt8] = []
    private var outboundOffset = 0
    private var waitingForWritable = false
    private var tlsWantsWriteToRead = false
    private(set) var isClosed = false
    /// Why the connection failed, when it did: a TLS error or a socket error, for the owner's messages and logs.
    private(set) var failure: String?
    private var lastActivity = ContinuousClock.now
    private var idleTimer: TimerHeap.ID?
    /// Output beyond this stays inside the protocol (nghttp2 queues it) until the socket drains.
    private static let outboundHighWater = 256 * 1024

    init(fd: Int32, loop: EventLoop, peer: String, tls: TLSStream?, idleTimeout: Duration?) {
        self.fd = fd
        self.loop = loop
        self.peer = peer
        self.tls = tls
        self.idleTimeout = idleTimeout
    }

    /// Registers with the loop; call on the loop.
    func start() {
        loop.register(fd, handler: self)
        armIdleTimer()
        if tls != nil { continueHandshake() }
    }

    func handleEvent(readable: Bool, writable: Bool, hangup: Bool) {
        if hangup {
            close()
            return
        }
        lastActivity = .now
        if tlsContextToSniff != nil, readable, !sniffTLS() { return }
        if let tls, !tls.handshakeDone {
            continueHandshake()
            return
        }
        if writable || (readable && tlsWantsWriteToRead) { writeOutbound() }
        if readable { readAvailable() }
        flush()
    }

    func runAtEndOfTick() { flush() }

    /// Asks for output to be collected and written once the current tick's work is done.
    func scheduleFlush() {
        guard !isClosed else { return }
        loop.runAtEndOfTick(self)
    }

    /// Moves the protocol's output to the socket until the protocol has nothing more or the socket would block.
    func flush() {
        guard !isClosed, let protocolHandler else { return }
        while !isClosed {
            let before = outbound.count
            while outbound.count - outboundOffset < Self.outboundHighWater {
                let produced = outbound.count
                protocolHandler.produceOutput(into: &outbound)
                if outbound.count == produced { break }
            }
            let producedAny = outbound.count > before
            writeOutbound()
            // Stop when the socket is full (writability resumes us) or the protocol has nothing left to say.
            if waitingForWritable || !producedAny { break }
        }
        if !isClosed, protocolHandler.isFinished, outboundOffset == outbound.count { close() }
    }

    func close(failure: String? = nil) {
        guard !isClosed else { return }
        if let failure { self.failure = failure }
        isClosed = true
        loop.cancelTimer(idleTimer)
        tls?.shutdown()
        loop.unregister(fd)
        Glibc.close(fd)
        protocolHandler?.connectionClosed()
        protocolHandler = nil
        onClose?(self)
        onClose = nil
    }

    private func continueHandshake() {
        guard let tls else { return }
        switch tls.handshake() {
        case .bytes:
            loop.setInterest(fd, readable: true, writable: false)
            onHandshakeCompleted?(tls.negotiatedProtocol)
            onHandshakeCompleted = nil
            readAvailable()
            flush()
        case .wantRead: loop.setInterest(fd, readable: true, writable: false)
        case .wantWrite: loop.setInterest(fd, readable: true, writable: true)
        case .closed: close(failure: "closed during the TLS handshake")
        case .failed(let reason): close(failure: "TLS handshake failed: \(reason)")
        }
    }

    /// Peeks at the first byte without consuming it, so OpenSSL can read the ClientHello itself.
    /// Returns false when there is nothing more to do for this event.
    private func sniffTLS() -> Bool {
        guard let context = tlsContextToSniff else { return true }
        var first: UInt8 = 0
        let count = recv(fd, &first, 1, Int32(MSG_PEEK))
        if count < 0, errno == EAGAIN || errno == EINTR { return false }
        tlsContextToSniff = nil
        guard count == 1 else {
            close()
            return false
        }
        // 0x16 is a TLS handshake record.
        if first == 0x16 {
            guard let stream = try? TLSStream(context: context, fd: fd) else {
                close()
                return false
            }
            tls = stream
        } else if !allowsCleartext {
            close()
            return false
        }
        return true
    }

    private func readAvailable() {
        // The loop's read buffer is shared, so hand each chunk to the protocol before reading the next.
        while !isClosed {
            let count = loop.readBuffer.withUnsafeMutableBytes { buffer -> Int in
                if let tls {
                    switch tls.read(into: buffer) {
                    case .bytes(let n): return n
                    case .wantRead: return -1
                    case .wantWrite:
                        tlsWantsWriteToRead = true
                        return -1
                    case .closed: return 0
                    case .failed(let reason):
                        failure = "TLS error: \(reason)"
                        return 0
                    }
                }
                let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
                if n < 0 {
                    if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return -1 }
                    failure = String(cString: strerror(errno))
                    return 0
                }
                return n
            }
            if count < 0 { return }
            if count == 0 {
                close()
                return
            }
            let keepGoing = loop.readBuffer.withUnsafeBytes { buffer in
                protocolHandler?.receive(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) ?? false
            }
            if !keepGoing {
                flush()
                close()
                return
            }
        }
    }

    private func writeOutbound() {
        while outboundOffset < outbound.count, !isClosed {
            let written = outbound.withUnsafeBytes { buffer -> Int in
                let pending = UnsafeRawBufferPointer(rebasing: buffer[outboundOffset...])
                if let tls {
                    switch tls.write(pending) {
                    case .bytes(let n): return n
                    case .wantRead, .wantWrite: return -1
                    case .closed: return 0
                    case .failed(let reason):
                        failure = "TLS error: \(reason)"
                        return 0
                    }
                }
                let n = send(fd, pending.baseAddress, pending.count, Int32(MSG_NOSIGNAL))
                if n < 0 {
                    if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return -1 }
                    failure = String(cString: strerror(errno))
                    return 0
                }
                return n
            }
            if written < 0 { break }
            if written == 0 {
                close()
                return
            }
            outboundOffset += written
        }
        if outboundOffset == outbound.count {
            outbound.removeAll(keepingCapacity: outbound.capacity <= 1024 * 1024)
            outboundOffset = 0
        }
        let needWritable = outboundOffset < outbound.count
        if needWritable != waitingForWritable, !isClosed {
            waitingForWritable = needWritable
            loop.setInterest(fd, readable: true, writable: needWritable)
        }
    }

    private func armIdleTimer() {
        guard let idleTimeout, !isClosed else { return }
        let deadline = lastActivity + idleTimeout
        idleTimer = loop.scheduleTimer(after: ContinuousClock.now.duration(to: deadline)) { [weak self] in
            guard let self, !self.isClosed, self.idleTimeout != nil else { return }
            if self.lastActivity + idleTimeout <= .now {
                self.close()
            } else {
                self.armIdleTimer()
            }
        }
    }
}
