import CNGHTTP2
import Encodings
import HTTP1
import PosixIO
import RPCCore

/// The client side of one HTTP/2 connection: gRPC calls as streams. Loop-confined.
final class HTTP2ClientConnection: HTTP2SessionDelegate, ConnectionProtocol {
    private final class ClientStream {
        let call: GRPCClientCall
        let request: [UInt8]
        var requestOffset = 0
        var head = HeaderBlock()
        var headBlocksSeen = 0
        var deframer: MessageDeframer
        var deadlineTimer: TimerHeap.ID?

        init(call: GRPCClientCall, request: [UInt8], maxMessageSize: Int) {
            self.call = call
            self.request = request
            self.deframer = MessageDeframer(maxMessageSize: maxMessageSize)
        }
    }

    private unowned let socket: SocketConnection
    private let configuration: GRPCClientConfiguration
    private var session: NGHTTP2Session!
    private var streams: [Int32: ClientStream] = [:]
    private var closing = false
    /// Whether the server's SETTINGS frame, its half of the HTTP/2 preface, has arrived.
    private var prefaceReceived = false
    /// The server's first bytes, up to a TLS record header's three: a TLS alert in answer to cleartext says why the
    /// connection failed.
    private var firstBytes: [UInt8] = []

    init(socket: SocketConnection, configuration: GRPCClientConfiguration) throws(TransportError) {
        self.socket = socket
        self.configuration = configuration
        super.init()
        session = try NGHTTP2Session(role: .client, delegate: self, options: NGHTTP2Session.Options())
        session.submitSettings([
            (NGHTTP2_SETTINGS_ENABLE_PUSH, 0),
            (NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 1024 * 1024),
        ])
        session.setLocalWindowSize(4 * 1024 * 1024)
    }

    var isAvailable: Bool { !closing && session != nil && !socket.isClosed }

    /// Opens a stream for `call`, sending one framed request message and END_STREAM.
    func start(
        _ call: GRPCClientCall, path: String, request: [UInt8], metadata: Metadata, timeout: Duration?
    ) {
        // The connection can fail while it is being set up (a refused TLS handshake): then there is no session.
        guard session != nil else {
            complete(call, with: failure)
            return
        }
        var headers = HeaderList()
        headers.add(":method", "POST")
        headers.add(":scheme", configuration.tls == nil ? "http" : "https")
        headers.add(":path", path)
        headers.add(":authority", "\(configuration.host):\(configuration.port)")
        headers.add("content-type", "application/grpc")
        headers.add("te", "trailers")
        headers.add("user-agent", "entitlementd-swift/1")
        if let timeout { headers.add("grpc-timeout", GRPCTimeout.encode(timeout)) }
        headers.add(metadata)
        let stream = ClientStream(
            call: call, request: MessageFraming.frame(request), maxMessageSize: configuration.maxReceiveMessageSize)
        let streamID = session.submitRequest(headers: headers)
        guard streamID > 0 else {
            call.complete(RPCStatus(code: .unavailable, message: "Could not open a stream: \(NGHTTP2Session.describe(streamID))"))
            return
        }
        streams[streamID] = stream
        if let timeout {
            stream.deadlineTimer = socket.loop.scheduleTimer(after: timeout) { [weak self] in
                guard let self, self.streams[streamID] != nil else { return }
                self.session.resetStream(streamID: streamID, errorCode: NGHTTP2_CANCEL)
                stream.call.complete(RPCStatus(RPCError.deadlineExceeded))
                self.socket.scheduleFlush()
            }
        }
        socket.scheduleFlush()
    }

    func cancel(_ call: GRPCClientCall) {
        guard session != nil, let (streamID, _) = streams.first(where: { $0.value.call === call }) else { return }
        session.resetStream(streamID: streamID, errorCode: NGHTTP2_CANCEL)
        socket.scheduleFlush()
    }

    func close() {
        closing = true
        if session != nil { session.submitGoaway(errorCode: NGHTTP2_NO_ERROR) }
        socket.scheduleFlush()
    }

    // MARK: ConnectionProtocol

    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if firstBytes.count < 3 { firstBytes += bytes.prefix(3 - firstBytes.count) }
        return session.receive(bytes)
    }

    func produceOutput(into buffer: inout [UInt8]) { session.produceOutput(into: &buffer) }

    var isFinished: Bool { (closing && streams.isEmpty) || !session.wantsReadOrWrite }

    /// Why the connection ended, for the calls it ends.
    private var failure: ClientConnectionFailure {
        ClientConnectionFailure.classify(
            socket.failure, address: ListenAddress.format(host: configuration.host, port: configuration.port),
            usesTLS: configuration.tls != nil, received: firstBytes, prefaceReceived: prefaceReceived)
    }

    private func complete(_ call: GRPCClientCall, with failure: ClientConnectionFailure) {
        call.complete(RPCStatus(code: .unavailable, message: failure.description), cause: failure)
    }

    func connectionClosed() {
        let failure = self.failure
        for stream in streams.values {
            socket.loop.cancelTimer(stream.deadlineTimer)
            complete(stream.call, with: failure)
        }
        streams.removeAll()
        session = nil
    }

    func beginGracefulShutdown() { close() }

    // MARK: HTTP2SessionDelegate

    override func headersBegan(streamID: Int32) {
        guard let stream = streams[streamID] else { return }
        stream.headBlocksSeen += 1
        if stream.headBlocksSeen == 2 { stream.head = HeaderBlock() }
    }

    override func headerReceived(streamID: Int32, name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> Bool {
        streams[streamID]?.head.add(name: name, value: value, limit: 64 * 1024)
        return true
    }

    override func headersReceived(streamID: Int32, endStream: Bool) {
        guard let stream = streams[streamID] else { return }
        let head = stream.head
        if stream.headBlocksSeen == 1 {
            let httpStatus = head.value(of: ":status") ?? ""
            if httpStatus != "200" || !head.isGRPC, head.value(of: "grpc-status") == nil {
                stream.call.complete(Self.statusForHTTP(httpStatus))
                return
            }
            if !endStream {
                stream.call.receivedHeaders((try? head.metadata()) ?? Metadata())
                return
            }
        }
        if endStream { complete(stream, trailers: head) }
    }

    override func dataReceived(streamID: Int32, bytes: UnsafeRawBufferPointer) {
        guard let stream = streams[streamID] else { return }
        stream.deframer.append(bytes)
        do {
            while let message = try stream.deframer.next() { stream.call.received(message: message) }
        } catch {
            stream.call.complete(RPCStatus(error))
            session.resetStream(streamID: streamID, errorCode: NGHTTP2_CANCEL)
        }
    }

    override func endStreamReceived(streamID: Int32) {
        guard let stream = streams[streamID] else { return }
        stream.call.complete(RPCStatus(code: .internal, message: "The server closed the stream without trailers."))
    }

    override func streamClosed(streamID: Int32, errorCode: UInt32) {
        guard let stream = streams.removeValue(forKey: streamID) else { return }
        socket.loop.cancelTimer(stream.deadlineTimer)
        let reason = errorCode == 0 ? "without a status" : "with error \(errorCode)"
        stream.call.complete(RPCStatus(code: .unavailable, message: "The server closed the stream \(reason)."))
        if closing { socket.scheduleFlush() }
    }

    override func goawayReceived() {
        closing = true
    }

    override func settingsReceived() { prefaceReceived = true }

    override func readData(streamID: Int32, into buffer: UnsafeMutableRawBufferPointer) -> HTTP2DataRead {
        guard let stream = streams[streamID] else { return .end(0) }
        let count = min(buffer.count, stream.request.count - stream.requestOffset)
        if count > 0 {
            stream.request.withUnsafeBytes { source in
                buffer.baseAddress!.copyMemory(from: source.baseAddress! + stream.requestOffset, byteCount: count)
            }
        }
        stream.requestOffset += count
        return stream.requestOffset == stream.request.count ? .end(count) : .bytes(count)
    }

    override func headersNotSent(streamID: Int32, reason: Int32) {
        guard let stream = streams[streamID] else { return }
        stream.call.complete(
            RPCStatus(code: .internal, message: "The request headers could not be sent: \(NGHTTP2Session.describe(reason))."))
        session.resetStream(streamID: streamID, errorCode: NGHTTP2_INTERNAL_ERROR)
    }

    // MARK: Status

    private func complete(_ stream: ClientStream, trailers: HeaderBlock) {
        guard let code = trailers.value(of: "grpc-status").flatMap({ Int($0) }) else {
            stream.call.complete(RPCStatus(code: .internal, message: "The response trailers carry no grpc-status."))
            return
        }
        let message = trailers.value(of: "grpc-message").map(PercentEncoding.decode) ?? ""
        stream.call.complete(
            RPCStatus(code: RPCError.Code(rawValue: code), message: message, trailers: (try? trailers.metadata()) ?? Metadata()))
    }

    /// gRPC's mapping of HTTP statuses for responses that are not gRPC (doc/http-grpc-status-mapping.md).
    private static func statusForHTTP(_ status: String) -> RPCStatus {
        let code: RPCError.Code =
            switch status {
            case "400": .internal
            case "401": .unauthenticated
            case "403": .permissionDenied
            case "404": .unimplemented
            case "429", "502", "503", "504": .unavailable
            default: .unknown
            }
        return RPCStatus(code: code, message: "The server answered HTTP \(status) without a gRPC status.")
    }
}
