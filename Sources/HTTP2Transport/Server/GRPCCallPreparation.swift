import RequestTracing
import RPCCore

/// What a call needs before its handler runs, checked the same way on HTTP/2 and HTTP/1.1 (gRPC-Web).
struct PreparedCall {
    var route: RPCRouter.Route
    var metadata: Metadata
    /// The client's `grpc-timeout`. A duration, not an instant: a `ContinuousClock.Instant` is copied through
    /// runtime type information each time this struct moves.
    var timeout: Duration?
    var decompressor: (any MessageDecompressor)?
}

extension ServerShared {
    /// Everything about a call that can fail before its handler runs, in the order gRPC servers check it.
    /// `recentRoute`, the connection's last, is taken without the router's lookup when the path is its own.
    ///
    /// gRPC-Web has no per-message compression (browsers compress whole bodies), so a web call gets no decompressor
    /// and a compressed message in it fails as one without `grpc-encoding` does.
    func prepareCall(_ head: inout HeaderBlock, acceptsNewCalls: Bool, recentRoute: RPCRouter.Route? = nil)
        -> Result<PreparedCall, RPCError>
    {
        guard acceptsNewCalls else {
            return .failure(RPCError(code: .unavailable, message: "The server is shutting down."))
        }
        let recent = recentRoute.flatMap { $0.method.path == head.path ? $0 : nil }
        guard let route = recent ?? router.route(forPath: head.path) else {
            return .failure(router.unimplementedError(forPath: head.path))
        }
        var decompressor: (any MessageDecompressor)?
        if head.webMode == nil, let encoding = head.encoding, encoding != "identity" {
            decompressor = decompressors[encoding]
            guard decompressor != nil else {
                // Every response head names the supported encodings (grpc-accept-encoding).
                return .failure(RPCError(code: .unimplemented, message: "Compression '\(encoding)' is not supported."))
            }
        }
        var timeout: Duration?
        if let header = head.timeout {
            guard let duration = GRPCTimeout.parse(header) else {
                return .failure(RPCError(code: .internal, message: "Malformed grpc-timeout '\(header)'."))
            }
            timeout = duration
        }
        do {
            let metadata = try head.callMetadata()
            return .success(PreparedCall(route: route, metadata: metadata, timeout: timeout, decompressor: decompressor))
        } catch {
            return .failure(error)
        }
    }

    /// The gRPC-Web side of a call with `head`, or nil for a gRPC call.
    func makeWebCall(for head: HeaderBlock, requestID: String) -> GRPCWebCall? {
        head.webMode.map {
            GRPCWebCall(
                mode: $0,
                headers: [(RequestID.headerName, requestID)]
                    + GRPCWebCORS.responseHeaders(origin: head.value(of: "origin"), policy: configuration.grpcWebCORS))
        }
    }
}
