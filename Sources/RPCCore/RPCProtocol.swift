/// The protocol a call came in: each frames messages and carries the status its own way, and the server serves every
/// method in each.
public enum RPCProtocol: Int, Sendable, CaseIterable {
    /// gRPC over HTTP/2: length-prefixed messages, the status in HTTP trailers.
    case grpc
    /// gRPC-Web (a browser's framing, HTTP/1.1 or HTTP/2): the status in a trailers frame at the end of the body.
    case grpcWeb
    /// The Connect protocol: a unary call is a plain HTTP request and response (its status the HTTP status and an
    /// error body), a stream ends with an end-of-stream message; messages in binary protobuf or JSON.
    case connect

    /// The name in logs and metric labels.
    public var name: String {
        switch self {
        case .grpc: "grpc"
        case .grpcWeb: "grpc_web"
        case .connect: "connect"
        }
    }

    /// Whether the call may pass through paths that end quiet responses (browsers' proxies, load balancers that
    /// buffer or time out HTTP/1.1 bodies): a long stream then needs a heartbeat. gRPC over HTTP/2 has its own
    /// keepalive pings.
    public var needsHeartbeat: Bool { self != .grpc }
}
