import CNGHTTP2
import CSystemShims
import PosixIO

/// What an HTTP/2 endpoint (server or client) does with the events of its nghttp2 session: each endpoint overrides
/// the events it handles; the others are ignored.
///
/// A class, not a protocol: nghttp2's callbacks reach the endpoint through an unretained reference
/// (`Unmanaged._withUnsafeGuaranteedRef`), which only a class type allows. Loading a protocol existential from an
/// `unowned(unsafe)` property retained and released it around each of the dozen and more callbacks of every request.
///
/// Every method runs on the connection's event loop, from inside `nghttp2_session_mem_recv` or `mem_send`:
/// none may call back into the session's send or receive.
class HTTP2SessionDelegate {
    /// A HEADERS frame opens or continues a header block on a stream.
    func headersBegan(streamID: Int32) {}
    /// One header field; false resets the stream (the block was rejected).
    func headerReceived(streamID: Int32, name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> Bool { true }
    /// A whole header block arrived; `endStream` when the peer finished sending.
    func headersReceived(streamID: Int32, endStream: Bool) {}
    func dataReceived(streamID: Int32, bytes: UnsafeRawBufferPointer) {}
    /// END_STREAM arrived on a DATA frame.
    func endStreamReceived(streamID: Int32) {}
    /// The stream is closed; `errorCode` is non-zero when it was reset by either side.
    func streamClosed(streamID: Int32, errorCode: UInt32) {}
    func pingReceived(isAck: Bool) {}
    /// A SETTINGS frame (not an ack): on a server, the first one completes the client's connection preface.
    func settingsReceived() {}
    func goawayReceived() {}
    /// Fills `buffer` with the stream's next DATA bytes (see ``HTTP2DataRead``).
    func readData(streamID: Int32, into buffer: UnsafeMutableRawBufferPointer) -> HTTP2DataRead { .end(0) }
    /// A frame carrying END_STREAM went out on the stream.
    func endStreamSent(streamID: Int32) {}
    /// nghttp2 dropped a HEADERS frame it could not send (`reason` is its error code), typically a header block over
    /// the send limit. The stream stays open unless the delegate resets it.
    func headersNotSent(streamID: Int32, reason: Int32) {}
}

/// The result of a data provider read.
enum HTTP2DataRead {
    case bytes(Int)
    /// Nothing queued now; the stream waits for ``NGHTTP2Session/resumeData(streamID:)``.
    case deferred
    /// The body ends with these bytes; trailers follow (submitted by the delegate before returning).
    case endWithTrailers(Int)
    /// The body ends with these bytes and END_STREAM.
    case end(Int)
}

/// An nghttp2 session: the C bridging and nothing else. Loop-confined.
final class NGHTTP2Session {
    enum Role { case server, client }

    private(set) var session: OpaquePointer!
    /// The session's frame buffers (``releaseIdlePages()``).
    private let pages: OpaquePointer
    /// Whether nghttp2 has handed over every frame it packed: its frame buffers hold nothing it will read again.
    private var betweenFrames = true

    /// `delegate` is the connection that owns this session and alone drives it: nghttp2 calls back only from inside
    /// `receive` and `produceOutput`, which the delegate calls (`nghttp2_session_del` calls nothing back), so the
    /// delegate is alive whenever it is reached. The session's user data is the delegate, unretained: a checked
    /// `unowned` reference would cost two atomic operations per callback.
    init(role: Role, delegate: HTTP2SessionDelegate, options: Options) throws(TransportError) {
        var option: OpaquePointer?
        nghttp2_option_new(&option)
        defer { nghttp2_option_del(option) }
        nghttp2_option_set_no_auto_window_update(option, options.manualFlowControl ? 1 : 0)
        nghttp2_option_set_max_outbound_ack(option, 1000)
        nghttp2_option_set_max_send_header_block_length(option, options.maxSendHeaderBlockBytes)
        if !options.checksHTTPMessaging { nghttp2_option_set_no_http_messaging(option, 1) }
        if options.streamResetBurst > 0 {
            nghttp2_option_set_stream_reset_rate_limit(
                option, UInt64(options.streamResetBurst), UInt64(options.streamResetRatePerSecond))
        }
        var session: OpaquePointer?
        let userData = Unmanaged.passUnretained(delegate).toOpaque()
        // The session's 16 KiB frame buffer in pages of its own, resident only as far as frames were written into
        // it, which for an idle device's connection is a few hundred bytes (BENCHMARKS.md, issue 39).
        guard let pages = cshim_paged_owner_new() else { throw .http2("nghttp2 session: out of memory") }
        self.pages = pages
        var memory = nghttp2_mem(
            mem_user_data: UnsafeMutableRawPointer(pages), malloc: cshim_paged_malloc, free: cshim_paged_free,
            calloc: cshim_paged_calloc, realloc: cshim_paged_realloc)
        let result =
            role == .server
            ? nghttp2_session_server_new3(&session, Self.callbacks.pointer, userData, option, &memory)
            : nghttp2_session_client_new3(&session, Self.callbacks.pointer, userData, option, &memory)
        // (Thrown with every property set: deinit frees the owner.)
        guard result == 0, let session else { throw .http2("nghttp2 session: \(Self.describe(result))") }
        self.session = session
    }

    deinit {
        nghttp2_session_del(session)
        cshim_paged_owner_free(pages)
    }

    struct Options {
        var manualFlowControl = false
        var streamResetBurst = 0
        var streamResetRatePerSecond = 0
        /// The largest HPACK-encoded header block (headers or trailers) this side sends; nghttp2's default.
        var maxSendHeaderBlockBytes = 64 * 1024
        /// False when the delegate checks RFC 9113 §8's rules itself (``RequestFieldRules``).
        var checksHTTPMessaging = true
    }

    // MARK: Driving the session

    /// Feeds received bytes; false when the peer broke the protocol. A GOAWAY with the reason is queued then,
    /// unless nghttp2 already queued one, so the peer learns why before the connection closes.
    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count > 0 else { return true }
        let result = nghttp2_session_mem_recv(session, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), bytes.count)
        guard result < 0 else { return true }
        let code: nghttp2_error_code =
            switch Int32(result) {
            case NGHTTP2_ERR_FLOODED.rawValue: NGHTTP2_ENHANCE_YOUR_CALM
            case NGHTTP2_ERR_HEADER_COMP.rawValue: NGHTTP2_COMPRESSION_ERROR
            default: NGHTTP2_PROTOCOL_ERROR
            }
        nghttp2_session_terminate_session(session, code.rawValue)
        return false
    }

    /// Appends everything nghttp2 wants to send.
    func produceOutput(into buffer: inout [UInt8]) {
        while true {
            var data: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &data)
            // A frame handed over stays in the frame buffer until the next call; none is left once one returns 0.
            betweenFrames = count <= 0
            guard count > 0, let data else { return }
            buffer.append(contentsOf: UnsafeBufferPointer(start: data, count: count))
            if buffer.count > 256 * 1024 { return }
        }
    }

    /// Gives the pages of the frame buffers back to the kernel, unless a frame is still in them; false then. For a
    /// connection that has gone quiet: the next frame costs a page fault.
    func releaseIdlePages() -> Bool {
        guard betweenFrames else { return false }
        cshim_paged_owner_release(pages)
        return true
    }

    var wantsReadOrWrite: Bool {
        nghttp2_session_want_read(session) != 0 || nghttp2_session_want_write(session) != 0
    }

    var wantsWrite: Bool { nghttp2_session_want_write(session) != 0 }

    func submitSettings(_ settings: [(nghttp2_settings_id, UInt32)]) {
        let entries = settings.map { nghttp2_settings_entry(settings_id: Int32($0.0.rawValue), value: $0.1) }
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), entries, entries.count)
    }

    func setLocalWindowSize(_ size: Int32) {
        nghttp2_session_set_local_window_size(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, size)
    }

    /// Submits a response (server) with a data provider, or with END_STREAM on the HEADERS when `hasBody` is false.
    /// Returns nghttp2's result: 0, or the (negative) reason it refused the response.
    @discardableResult
    func submitResponse(streamID: Int32, headers: HeaderList, hasBody: Bool) -> Int32 {
        headers.withNV { nva, count in submitResponse(streamID: streamID, nva: nva, count: count, hasBody: hasBody) }
    }

    /// ``submitResponse(streamID:headers:hasBody:)`` with one more field after `headers` that HPACK does not index.
    func submitResponse(
        streamID: Int32, headers: HeaderList, appendingUnindexed field: (name: String, value: String), hasBody: Bool
    ) -> Int32 {
        headers.withNV(appendingUnindexed: field.name, field.value) { nva, count in
            submitResponse(streamID: streamID, nva: nva, count: count, hasBody: hasBody)
        }
    }

    private func submitResponse(streamID: Int32, nva: UnsafePointer<nghttp2_nv>, count: Int, hasBody: Bool) -> Int32 {
        guard hasBody else { return nghttp2_submit_response(session, streamID, nva, count, nil) }
        var provider = Self.dataProvider
        return nghttp2_submit_response(session, streamID, nva, count, &provider)
    }

    /// Submits a request (client) whose body comes from the delegate's `readData`; returns the stream id.
    func submitRequest(headers: HeaderList) -> Int32 {
        headers.withNV { nva, count in
            var provider = Self.dataProvider
            return nghttp2_submit_request(session, nil, nva, count, &provider, nil)
        }
    }

    /// False when nghttp2 refused the trailers outright (the stream is then still open).
    func submitTrailers(streamID: Int32, headers: HeaderList) -> Bool {
        headers.withNV { nva, count in nghttp2_submit_trailer(session, streamID, nva, count) == 0 }
    }

    func resetStream(streamID: Int32, errorCode: nghttp2_error_code) {
        nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, errorCode.rawValue)
    }

    /// Wakes a stream whose data provider deferred. Harmless when the stream is gone or not deferred.
    func resumeData(streamID: Int32) {
        _ = nghttp2_session_resume_data(session, streamID)
    }

    /// Reopens the receive window by bytes the application has consumed (manual flow control).
    func consume(streamID: Int32, bytes: Int) {
        _ = nghttp2_session_consume(session, streamID, bytes)
    }

    func consumeConnection(bytes: Int) {
        _ = nghttp2_session_consume_connection(session, bytes)
    }

    func submitPing() {
        nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil)
    }

    func submitShutdownNotice() {
        nghttp2_submit_shutdown_notice(session)
    }

    func submitGoaway(errorCode: nghttp2_error_code, debugData: String = "") {
        let lastStream = nghttp2_session_get_last_proc_stream_id(session)
        var debug = Array(debugData.utf8)
        nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), lastStream, errorCode.rawValue, &debug, debug.count)
    }

    func isStreamRemoteClosed(_ streamID: Int32) -> Bool {
        nghttp2_session_get_stream_remote_close(session, streamID) != 0
    }

    static func describe(_ code: Int32) -> String { String(cString: nghttp2_strerror(code)) }

    // MARK: C callbacks

    /// Runs `body` with the delegate a callback's user data names, neither retained nor released.
    private static func withDelegate<Result>(
        _ userData: UnsafeMutableRawPointer?, _ body: (HTTP2SessionDelegate) -> Result
    ) -> Result {
        Unmanaged<HTTP2SessionDelegate>.fromOpaque(userData!)._withUnsafeGuaranteedRef(body)
    }

    /// Callbacks are identical for every session; built once.
    private struct Callbacks: @unchecked Sendable { let pointer: OpaquePointer }

    private static let callbacks: Callbacks = {
        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { _, frame, userData in
            guard let frame else { return 0 }
            withDelegate(userData) { $0.headersBegan(streamID: frame.pointee.hd.stream_id) }
            return 0
        }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) { _, frame, name, nameLength, value, valueLength, _, userData in
            guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) else { return 0 }
            let accepted = withDelegate(userData) {
                $0.headerReceived(
                    streamID: frame.pointee.hd.stream_id,
                    name: UnsafeRawBufferPointer(start: name, count: nameLength),
                    value: UnsafeRawBufferPointer(start: value, count: valueLength))
            }
            return accepted ? 0 : NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, userData in
            guard let frame else { return 0 }
            let header = frame.pointee.hd
            let endStream = header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
            withDelegate(userData) { delegate in
                switch Int(header.type) {
                case Int(NGHTTP2_HEADERS.rawValue):
                    delegate.headersReceived(streamID: header.stream_id, endStream: endStream)
                case Int(NGHTTP2_DATA.rawValue):
                    if endStream { delegate.endStreamReceived(streamID: header.stream_id) }
                case Int(NGHTTP2_PING.rawValue):
                    delegate.pingReceived(isAck: header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0)
                case Int(NGHTTP2_GOAWAY.rawValue):
                    delegate.goawayReceived()
                case Int(NGHTTP2_SETTINGS.rawValue):
                    if header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0 { delegate.settingsReceived() }
                default: break
                }
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, streamID, data, length, userData in
            withDelegate(userData) {
                $0.dataReceived(streamID: streamID, bytes: UnsafeRawBufferPointer(start: data, count: length))
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamID, errorCode, userData in
            withDelegate(userData) { $0.streamClosed(streamID: streamID, errorCode: errorCode) }
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks) { _, frame, userData in
            guard let frame else { return 0 }
            let header = frame.pointee.hd
            if header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0 {
                withDelegate(userData) { $0.endStreamSent(streamID: header.stream_id) }
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_not_send_callback(callbacks) { _, frame, reason, userData in
            guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) else { return 0 }
            withDelegate(userData) { $0.headersNotSent(streamID: frame.pointee.hd.stream_id, reason: reason) }
            return 0
        }
        return Callbacks(pointer: callbacks!)
    }()

    private static let dataProvider: nghttp2_data_provider = {
        var provider = nghttp2_data_provider()
        provider.read_callback = { _, streamID, buffer, length, flags, _, userData in
            let read = withDelegate(userData) {
                $0.readData(streamID: streamID, into: UnsafeMutableRawBufferPointer(start: buffer, count: length))
            }
            switch read {
            case .bytes(let count):
                return count
            case .deferred:
                return Int(NGHTTP2_ERR_DEFERRED.rawValue)
            case .endWithTrailers(let count):
                flags!.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue | NGHTTP2_DATA_FLAG_NO_END_STREAM.rawValue
                return count
            case .end(let count):
                flags!.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
                return count
            }
        }
        return provider
    }()
}
