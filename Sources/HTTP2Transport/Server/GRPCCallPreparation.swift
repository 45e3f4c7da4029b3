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
    /// A Connect stream in JSON: its messages between JSON and the handler's binary.
    var transcoder: JSONTranscoder?

    /// Where the handler's responses go: the call's queue, through the transcoder for JSON.
    func responseSink(_ responses: GRPCResponseQueue) -> any ServerResponseSink {
        guard let transcoder else { return responses }
        return JSONResponseSink(responses: responses, transcoder: transcoder)
    }
}

extension ServerShared {
    /// Everything about a call that can fail before its handler runs, in the order gRPC servers check it.
    /// `recentRoute`, the connection's last, is taken without the router's lookup when the path is its own.
    ///
    /// gRPC-Web has no per-message compression (browsers compress whole bodies), so a web call gets no decompressor
    /// and a compressed message in it fails as one without `grpc-encoding` does. A Connect stream names its
    /// compression and deadline in its own headers.
    func prepareCall(_ head: inout HeaderBlock, acceptsNewCalls: Bool, recentRoute: RPCRouter.Route? = nil)
        -> Result<PreparedCall, RPCError>
    {
        guard acceptsNewCalls else {
            return .failure(.serverShuttingDown)
        }
        let recent = recentRoute.flatMap { $0.method.path == head.path ? $0 : nil }
        guard let route = recent ?? router.route(forPath: head.path) else {
            return .failure(router.unimplementedError(forPath: head.path))
        }
        var encoding = head.framing == nil ? head.encoding : nil
        var timeout: Duration?
        var transcoder: JSONTranscoder?
        if case .connect(let codec) = head.framing {
            // A unary method, or JSON the schema cannot read, was answered 415 before (unsupportedConnectStream).
            do {
                let connect = try ConnectRequestHeaders(head: head, encodingHeader: "connect-content-encoding")
                encoding = connect.encoding
                timeout = connect.timeout
                if codec == .json { transcoder = jsonTranscoder(for: route) }
            } catch {
                return .failure(error)
            }
        } else if let header = head.timeout {
            guard let duration = GRPCTimeout.parse(header) else {
                return .failure(RPCError(code: .internal, message: "Malformed grpc-timeout '\(header)'."))
            }
            timeout = duration
        }
        var decompressor: (any MessageDecompressor)?
        if let encoding, encoding != "identity" {
            decompressor = decompressors[encoding]
            guard decompressor != nil else {
                // Every response head names the supported encodings (grpc-accept-encoding).
                return .failure(RPCError(code: .unimplemented, message: "Compression '\(encoding)' is not supported."))
            }
        }
        do {
            let metadata = try head.callMetadata()
            return .success(
                PreparedCall(
                    route: route, metadata: metadata, timeout: timeout, decompressor: decompressor, transcoder: transcoder))
        } catch {
            return .failure(error)
        }
    }

    /// The JSON transcoder of `route`'s messages; nil when the server's schema does not describe the method.
    func jsonTranscoder(for route: RPCRouter.Route) -> JSONTranscoder? {
        configuration.messageSchema.flatMap { JSONTranscoder(schema: $0, path: route.method.path) }
    }

    /// Why a Connect stream (a call with Connect `framing`) to `path` cannot be served, for a 415 before it starts: a
    /// unary method, or JSON for a method the schema does not describe. nil when it can, or is no call to a method.
    func unsupportedConnectStream(framing: BodyFraming?, path: String) -> String? {
        guard case .connect(let codec) = framing, let route = router.route(forPath: path) else { return nil }
        if route.handler.kind == .unary {
            return "\(route.method.path) is unary: call it with content type \(codec.unaryContentType)."
        }
        if codec == .json, jsonTranscoder(for: route) == nil {
            return "\(route.method.path) is not served in JSON: use application/connect+proto."
        }
        return nil
    }

    /// The body-framed side of a call with `head` (gRPC-Web, a Connect stream), or nil for a gRPC call.
    func makeFramedBodyCall(for head: HeaderBlock, requestID: String, transcoder: JSONTranscoder? = nil) -> FramedBodyCall? {
        head.framing.map { framing in
            FramedBodyCall(
                framing: framing,
                headers: [(RequestID.headerName, requestID)]
                    + GRPCWebCORS.responseHeaders(origin: head.value(of: "origin"), policy: configuration.grpcWebCORS),
                transcoder: transcoder)
        }
    }
}
