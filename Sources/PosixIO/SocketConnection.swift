import Glibc
import Synchronization

/// Connection IDs, unique within the process.
private let connectionCounter = Atomic<UInt64>(0)

/// The protocol spoken on a connection once it is known: HTTP/2, HTTP/1.1, or the sniffer deciding between them.
package protocol ConnectionProtocol: AnyObject {
    /// Consumes bytes from the peer; false closes the connection at once.
    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool
    /// Appends output that is ready to go.
    func produceOutput(into buffer: inout [UInt8])
    /// True once nothing more will be sent or received; the connection closes after its output is written.
    var isFinished: Bool { get }
    /// The socket is gone: release everything, cancel every call.
    func connectionClosed()
    /// Whether the protocol can take more input now; while false the connection stops reading (back-pressure on a
    /// client that sends without reading the answers).
    var acceptsInput: Bool { get }
    /// Stop taking new work; finish what is in flight.
    func beginGracefulShutdown()
    /// The connection's first-head deadline (``SocketConnection/firstHeadTimeout``) passed. Protocols that time their
    /// own heads once installed ignore it.
    func firstHeadDeadlinePassed()
}

extension ConnectionProtocol {
    package var acceptsInput: Bool { true }
    package func firstHeadDeadlinePassed() {}
}

/// A non-blocking socket, optionally TLS, owned by one event loop, with a pluggable protocol on top.
package final class SocketConnection: FileEventHandler, EndOfTickTask {
    package let fd: Int32
    package let loop: EventLoop
    package let peer: String
    package let id = connectionCounter.add(1, ordering: .relaxed).newValue
    package var tls: (any SocketEncryption)?
    package var protocolHandler: (any ConnectionProtocol)?
    /// Called once when the connection closes, to let its owner forget it.
    package var onClose: ((SocketConnection) -> Void)?
    /// Connections whose protocol does its own liveness checks (HTTP/2 keepalive) set this to nil.
    package var idleTimeout: Duration?
    /// While true (a gRPC-Web response streaming on HTTP/1.1), silence is not idleness: a status stream may stay
    /// quiet between heartbeats. The timeout counts again from when it ends.
    package var isStreamingResponse = false {
        didSet { if !isStreamingResponse { lastActivity = .now } }
    }
    /// Set on a server that accepts TLS: the first byte tells whether the client starts a handshake.
    package var tlsToSniff: (any ServerEncryption)?
    /// Whether a client that does not start TLS may continue in cleartext.
    package var allowsCleartext = true
    /// Called once the TLS handshake completes, with the session (its ALPN protocol, whether it resumed).
    package var onHandshakeCompleted: ((any SocketEncryption) -> Void)?
    /// When the connection was made: a server's request-head deadlines count the first head from here.
    package let acceptedAt = ContinuousClock.now
    /// On a server: the TLS handshake and the bytes that tell the protocol must arrive within this long of the
    /// accept, or ``ConnectionProtocol/firstHeadDeadlinePassed()`` is called (the idle timeout restarts on every
    /// byte, so alone it would let a client trickling one byte at a time hold the connection).
    package var firstHeadTimeout: Duration?
    private var firstHeadTimer: TimerHeap.ID?

    // The state below is loop-confined and changed by nothing that calls out: unchecked for exclusive access, as in
    // HTTP2Transport's `HTTP2ServerConnection`. (The compiler proved that itself while the protocols this calls
    // were in the same module; it cannot across modules, and the checks cost about 150 instructions a request.)
    @exclusivity(unchecked) private var outbound: [UInt8] = []
    @exclusivity(unchecked) private var outboundOffset = 0
    /// Set while reading: the event's own ``flush()`` follows, so a ``scheduleFlush()`` meanwhile has nothing to add.
    @exclusivity(unchecked) @usableFromInline var flushFollows = false
    /// This connection is on the loop's end-of-tick list already.
    @exclusivity(unchecked) @usableFromInline var flushScheduled = false
    @exclusivity(unchecked) private var waitingForWritable = false
    /// Reading stopped because the protocol or the output buffer is full; ``resumeReading()`` restarts it.
    @exclusivity(unchecked) private var readingPaused = false
    /// Closing politely: our side is done, the peer's remaining bytes are read and dropped until it closes too, so
    /// the kernel does not answer them with a reset that could destroy our last frames (a GOAWAY) in flight.
    @exclusivity(unchecked) private var lingering = false
    @exclusivity(unchecked) private var tlsWantsWriteToRead = false
    @exclusivity(unchecked) package private(set) var isClosed = false
    /// Why the connection failed, when it did, for the owner's messages (the client names the likely fix).
    @exclusivity(unchecked) package private(set) var failure: SocketFailure?
    private var lastActivity = ContinuousClock.now
    private var idleTimer: TimerHeap.ID?
    /// Output beyond this stays inside the protocol (nghttp2 queues it) until the socket drains.
    private static let outboundHighWater = 256 * 1024

    package init(fd: Int32, loop: EventLoop, peer: String, tls: (any SocketEncryption)?, idleTimeout: Duration?) {
        self.fd = fd
        self.loop = loop
        self.peer = peer
        self.tls = tls
        self.idleTimeout = idleTimeout
    }

    /// A connection dropped without ``close()`` (its event loop stopped) still gives its descriptor back.
    deinit {
        if !isClosed { Glibc.close(fd) }
    }

    /// Registers with the loop; call on the loop.
    package func start() {
        loop.register(fd, handler: self)
        armIdleTimer()
        if let firstHeadTimeout {
            // Held strongly until it fires or is cancelled, like the idle timer.
            firstHeadTimer = loop.scheduleTimer(after: firstHeadTimeout) {
                self.firstHeadTimer = nil
                guard !self.isClosed else { return }
                self.protocolHandler?.firstHeadDeadlinePassed()
            }
        }
        if tls != nil { continueHandshake() }
    }

    package func handleEvent(readable: Bool, writable: Bool, hangup: Bool) {
        if hangup {
            // EPOLLERR: the socket's pending error (a refused connect) says why.
            let error = Socket.pendingError(fd)
            close(failure: error == 0 ? nil : .system(error))
            return
        }
        lastActivity = .now
        if lingering {
            if writable { writeOutbound() }
            if readable { discardInput() }
            return
        }
        if tlsToSniff != nil, readable, !sniffTLS() { return }
        if let tls, !tls.handshakeDone {
            continueHandshake()
            return
        }
        if writable || (readable && tlsWantsWriteToRead) { writeOutbound() }
        if readable {
            flushFollows = true
            readAvailable()
            flushFollows = false
        }
        flush()
    }

    package func runAtEndOfTick() {
        flushScheduled = false
        flush()
    }

    /// Asks for output to be collected and written once the current tick's work is done. Every call of a tick
    /// asks (each stream's response queues output): only the first reaches the loop. Inlinable: HTTP/2 asks twice
    /// a call, and across the module boundary each ask was a call.
    @inlinable package func scheduleFlush() {
        guard !isClosed, !flushFollows, !flushScheduled else { return }
        flushScheduled = true
        loop.runAtEndOfTick(self)
    }

    /// Moves the protocol's output to the socket until the protocol has nothing more or the socket would block.
    package func flush() {
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
        if !isClosed, protocolHandler.isFinished { closeGracefully() }
    }

    /// Our side is finished: send what is queued, then shut down writing and wait briefly for the peer to close.
    package func closeGracefully() {
        guard !isClosed, !lingering else { return }
        lingering = true
        protocolHandler?.connectionClosed()
        protocolHandler = nil
        // Held strongly for at most two seconds (a weak reference would slow this object's reference counting).
        loop.scheduleTimer(after: .seconds(2)) { self.close() }
        if outboundOffset == outbound.count { shutdownWriting() }
        updateInterest()
    }

    /// The protocol is known and times its heads itself from here.
    package func cancelFirstHeadDeadline() {
        loop.cancelTimer(firstHeadTimer)
        firstHeadTimer = nil
    }

    /// Restarts reading once the protocol can take input again.
    package func resumeReading() {
        guard readingPaused, !isClosed, !lingering, canRead else { return }
        readingPaused = false
        updateInterest()
        // TLS may hold decrypted bytes that epoll cannot see.
        readAvailable()
        flush()
    }

    private var canRead: Bool { protocolHandler?.acceptsInput ?? false }

    /// Bytes accepted for sending that the peer has not taken yet.
    package var pendingOutputBytes: Int { outbound.count - outboundOffset }

    private func shutdownWriting() {
        tls?.shutdown()
        Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    private func discardInput() {
        while !isClosed {
            let count = loop.readBuffer.withUnsafeMutableBytes { buffer -> Int in
                let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
                return n < 0 && (errno == EAGAIN || errno == EINTR) ? -1 : n
            }
            if count < 0 { return }
            if count == 0 {
                close()
                return
            }
        }
    }

    private func updateInterest() {
        guard !isClosed else { return }
        loop.setInterest(fd, readable: !readingPaused || lingering, writable: waitingForWritable)
    }

    /// Closes at once (a broken peer, a timeout). Use ``closeGracefully()`` when the protocol finished normally.
    package func close(failure: SocketFailure? = nil) {
        guard !isClosed else { return }
        if let failure { self.failure = failure }
        isClosed = true
        loop.cancelTimer(idleTimer)
        loop.cancelTimer(firstHeadTimer)
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
            onHandshakeCompleted?(tls)
            onHandshakeCompleted = nil
            readAvailable()
            flush()
        case .wantRead: loop.setInterest(fd, readable: true, writable: false)
        case .wantWrite: loop.setInterest(fd, readable: true, writable: true)
        case .closed: close(failure: .tlsHandshake(nil))
        case .failed(let reason): close(failure: .tlsHandshake(reason))
        }
    }

    /// Peeks at the first byte without consuming it, so OpenSSL can read the ClientHello itself.
    /// Returns false when there is nothing more to do for this event.
    private func sniffTLS() -> Bool {
        guard let encryption = tlsToSniff else { return true }
        var first: UInt8 = 0
        let count = recv(fd, &first, 1, Int32(MSG_PEEK))
        if count < 0, errno == EAGAIN || errno == EINTR { return false }
        tlsToSniff = nil
        guard count == 1 else {
            close()
            return false
        }
        // 0x16 is a TLS handshake record.
        if first == 0x16 {
            guard let stream = encryption.acceptSession(fd: fd) else {
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
        while !isClosed, !lingering {
            guard canRead else {
                if !readingPaused {
                    readingPaused = true
                    updateInterest()
                }
                return
            }
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
                        failure = tls.handshakeDone ? .tls(reason) : .tlsHandshake(reason)
                        return 0
                    }
                }
                let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
                if n < 0 {
                    if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return -1 }
                    failure = .system(errno)
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
                closeGracefully()
                return
            }
            // A short plain read drained the socket: skip the read that would only say EAGAIN (epoll is
            // level-triggered, so anything arriving later wakes us again). OpenSSL may hold more than it returned.
            if tls == nil, count < loop.readBuffer.count { return }
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
                        failure = tls.handshakeDone ? .tls(reason) : .tlsHandshake(reason)
                        return 0
                    }
                }
                let n = send(fd, pending.baseAddress, pending.count, Int32(MSG_NOSIGNAL))
                if n < 0 {
                    if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return -1 }
                    failure = .system(errno)
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
            updateInterest()
        }
        if !needWritable, lingering, !isClosed { shutdownWriting() }
        if !needWritable, readingPaused, !lingering, !isClosed { resumeReading() }
    }

    private func armIdleTimer() {
        guard let idleTimeout, !isClosed else { return }
        let deadline = lastActivity + idleTimeout
        // Held strongly until it fires or `close()` cancels it (a weak reference would slow this object's
        // reference counting).
        idleTimer = loop.scheduleTimer(after: ContinuousClock.now.duration(to: deadline)) {
            guard !self.isClosed, self.idleTimeout != nil else { return }
            if self.isStreamingResponse { self.lastActivity = .now }
            if self.lastActivity + idleTimeout <= .now {
                self.close()
            } else {
                self.armIdleTimer()
            }
        }
    }
}
