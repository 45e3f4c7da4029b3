import HTTP1
import RPCCore

/// One HTTP/2 stream on the server: what its request turned out to be.
final class ServerStream {
    enum Phase {
        case receivingHeaders
        case grpc(GRPCServerCall)
        case http(HTTPExchange)
        /// A response the transport produced itself (415, 405, 413, 431).
        case immediate(ResponseBody)
    }

    let id: Int32
    var phase = Phase.receivingHeaders
    /// The request body so far against its declared `content-length`.
    var bodyLength = RequestBodyLength(declared: nil)

    init(id: Int32) {
        self.id = id
    }
}

/// A response body sent from memory by the data provider.
final class ResponseBody {
    let bytes: [UInt8]
    private var offset = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> HTTP2DataRead {
        let count = min(buffer.count, bytes.count - offset)
        if count > 0 {
            bytes.withUnsafeBytes { source in
                buffer.baseAddress!.copyMemory(from: source.baseAddress! + offset, byteCount: count)
            }
        }
        offset += count
        return offset == bytes.count ? .end(count) : .bytes(count)
    }
}

/// A plain HTTP request on an HTTP/2 stream (webhooks, health probes, Connect unary calls).
final class HTTPExchange {
    private let target: HTTPRequest
    private let fields: [(name: String, value: String)]
    /// Set when the request is a Connect unary call: it, not the HTTP routes, answers.
    let connectCall: ConnectUnaryCall?
    var body: [UInt8] = []
    var response: ResponseBody?

    init(request: HTTPRequest, fields: [(name: String, value: String)], connectCall: ConnectUnaryCall? = nil) {
        self.target = request
        self.fields = fields
        self.connectCall = connectCall
    }

    func makeRequest() -> HTTPRequest {
        var request = target
        request.headers = HTTPHeaders(fields.map { ($0.name, $0.value) })
        request.body = body
        return request
    }

    func readResponse(into buffer: UnsafeMutableRawBufferPointer) -> HTTP2DataRead {
        response?.read(into: buffer) ?? .deferred
    }

    /// Headers HTTP/2 forbids (RFC 9113 §8.2.2), and content-length, which the transport sets itself.
    static func isConnectionSpecific(_ name: String) -> Bool {
        Metadata.isConnectionHeader(name) || name == "content-length"
    }
}
