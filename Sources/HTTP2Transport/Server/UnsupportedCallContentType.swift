import RPCCore
import BoundedText

/// A request that no plain-HTTP route serves and that is not a gRPC, gRPC-Web or Connect call this server takes, yet
/// looks like a call: its content type is of gRPC's family (`application/grpc+json`, `application/grpc-web+json`, or
/// `application/grpc` over HTTP/1.1), or its path names a method the server serves. Such a request is answered 415
/// Unsupported Media Type over HTTP/1.1 and HTTP/2 alike, as gRPC's PROTOCOL-HTTP2 asks of a gRPC server ("If
/// Content-Type does not begin with application/grpc, gRPC servers SHOULD respond with HTTP status of 415"), and as a
/// browser behind Envoy sees it (Envoy's grpc_web filter passes a content type it does not take on unchanged, and the
/// gRPC server behind answers 415). Any other unknown path is the router's 404.
enum UnsupportedCallContentType {
    /// Whether a request the routes do not serve should be answered 415 rather than 404.
    static func looksLikeCall(path: String, contentType: String?, router: RPCRouter) -> Bool {
        if let contentType, contentType.utf8.starts(with: "application/grpc".utf8) { return true }
        let methodPath = path.utf8.firstIndex(of: UInt8(ascii: "?")).map { String(path[..<$0]) } ?? path
        return router.route(forPath: methodPath) != nil
    }

    /// The 415 body: what was sent (escaped and bounded) and what each protocol needs.
    static func message(contentType: String?) -> String {
        "Content-Type \((contentType ?? "").quotedForMessage) is not supported: gRPC needs application/grpc (over HTTP/2), "
            + "gRPC-Web application/grpc-web or application/grpc-web-text (optionally +proto), Connect application/proto or "
            + "application/json (unary) and application/connect+proto or application/connect+json (streams)."
    }
}
