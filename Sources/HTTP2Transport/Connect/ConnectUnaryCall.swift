import Encodings
import HTTP1
import ProtoJSON
import RPCCore
import RequestTracing

/// A Connect unary call: a plain HTTP request (a POST with the message as its body, or a GET with it in the query)
/// answered with the message, or with an error body and the HTTP status of its code. The status decides the first
/// byte of the response, so the response is made whole: on the loop when the handler answers there, else when its
/// task ends (or the deadline passes).
///
/// Made from the request head (``init(head:request:shared:environment:)``), run when the body is complete
/// (``respond(body:later:)``), the same on HTTP/1.1 and HTTP/2.
final class ConnectUnaryCall {
    /// What a connection knows about a call's connection.
    struct Environment {
        var acceptsNewCalls: Bool
        var peer: String
        var connectionID: UInt64
        var memory: ConnectionMemory
        var tls: Bool
        var shard: Int
    }

    /// Whether a request no plain route serves is a Connect unary call: a POST in `application/proto` or
    /// `application/json`, or a GET, to a method's path.
    static func isUnaryCall(method: String, target: HTTPRequest, contentType: String?, router: RPCRouter) -> Bool {
        switch method {
        case "POST": contentType.flatMap(ConnectCodec.init(unaryContentType:)) != nil && router.route(forPath: target.path) != nil
        case "GET": router.route(forPath: target.path) != nil
        default: false
        }
    }

    private let shared: ServerShared
    private let requestID: String
    /// The request ID and, for an allowed browser origin, the CORS headers.
    private let baseHeaders: [(String, String)]
    /// Set when the call cannot run, whatever its body: the answer.
    private var refusal: HTTPResponse?
    private var route: RPCRouter.Route?
    private var codec = ConnectCodec.proto
    private var context: ServerContext?
    private let response = ConnectUnaryResponse()
    private var decompressor: (any MessageDecompressor)?
    private var transcoder: JSONTranscoder?
    private var timeout: Duration?
    /// A GET's message, from its query.
    private var queryMessage: [UInt8]?
    private var metrics: GRPCServerMetrics.Call?
    private var shard = 0
    /// The handler's task, once it runs as one: the client leaving or the server shutting down cancels it.
    private var task: Task<Void, Never>?

    init(head: inout HeaderBlock, request: HTTPRequest, shared: ServerShared, environment: Environment) {
        self.shared = shared
        requestID = RequestID.accept(head.value(of: RequestID.headerName))
        baseHeaders =
            [(RequestID.headerName, requestID)]
            + GRPCWebCORS.responseHeaders(origin: head.value(of: "origin"), policy: shared.configuration.grpcWebCORS)
        do throws(ConnectRefusal) {
            try prepare(&head, request: request, environment: environment)
        } catch {
            refusal = error.response(headers: baseHeaders)
        }
    }

    /// Why a call is refused before its handler runs: a Connect error, or an HTTP answer of its own (405, 415).
    private enum ConnectRefusal: Error, Sendable {
        case status(RPCStatus)
        case http(HTTPResponse)

        init(_ error: RPCError) { self = .status(RPCStatus(error)) }

        func response(headers: [(String, String)]) -> HTTPResponse {
            switch self {
            case .status(let status): return ConnectUnaryCall.errorResponse(status, headers: headers)
            case .http(var response):
                for (name, value) in headers { response.headers.add(name: name, value: value) }
                return response
            }
        }
    }

    private func prepare(_ head: inout HeaderBlock, request: HTTPRequest, environment: Environment) throws(ConnectRefusal) {
        guard environment.acceptsNewCalls else {
            throw ConnectRefusal(.serverShuttingDown)
        }
        guard let route = shared.router.route(forPath: request.path) else {
            throw ConnectRefusal(shared.router.unimplementedError(forPath: request.path))
        }
        guard route.handler.kind == .unary else {
            throw .http(
                .text(415, "\(route.method.path) is a streaming method: call it with application/connect+proto or +json.\n"))
        }
        if request.method == "GET", shared.configuration.messageSchema?.methods[route.method.path]?.hasNoSideEffects != true {
            var response = HTTPResponse.text(405, "\(route.method.path) has side effects: call it with POST.\n")
            response.headers.add(name: "allow", value: "POST")
            throw .http(response)
        }
        let headers: ConnectRequestHeaders
        do {
            if request.method == "GET" {
                let query = try ConnectGetQuery(request.query ?? "")
                guard let codec = ConnectCodec(name: query.encoding) else {
                    throw ConnectRefusal.http(.text(415, "A Connect GET's encoding must be proto or json.\n"))
                }
                self.codec = codec
                if let encoding = query.compression, encoding != "identity" { try useEncoding(encoding) }
                queryMessage = query.message
                headers = try ConnectRequestHeaders(head: head, encodingHeader: nil)
            } else {
                codec = head.contentType.flatMap(ConnectCodec.init(unaryContentType:)) ?? .proto
                headers = try ConnectRequestHeaders(head: head, encodingHeader: "content-encoding")
                if let encoding = headers.encoding { try useEncoding(encoding) }
            }
            if codec == .json {
                guard let transcoder = shared.jsonTranscoder(for: route) else {
                    throw ConnectRefusal.http(.text(415, "\(route.method.path) is not served in JSON: use application/proto.\n"))
                }
                self.transcoder = transcoder
            }
            timeout = headers.timeout
            let metadata = try head.callMetadata()
            self.route = route
            shard = environment.shard
            context = ServerContext(
                method: route.method, metadata: metadata, timeout: headers.timeout, peer: environment.peer,
                connectionID: environment.connectionID, connection: environment.memory, rpcProtocol: .connect,
                browserOrigin: CrossOrigin.of(origin: head.value(of: "origin"), authority: head.authority, tls: environment.tls),
                requestID: requestID, responseSink: response)
        } catch let refusal as ConnectRefusal {
            throw refusal
        } catch let error as RPCError {
            throw ConnectRefusal(error)
        } catch {
            throw ConnectRefusal(RPCError(from: error))
        }
    }

    private func useEncoding(_ encoding: String) throws(RPCError) {
        guard let decompressor = shared.decompressors[encoding] else {
            throw RPCError(code: .unimplemented, message: "Compression '\(encoding.prefix(32))' is not supported: use gzip or identity.")
        }
        self.decompressor = decompressor
    }

    /// Runs the call on the request's `body` (ignored for a GET). Returns the response when it is ready now; else
    /// `later` gets it, from another thread.
    func respond(body: [UInt8], later: @escaping @Sendable (HTTPResponse) -> Void) -> HTTPResponse? {
        if let refusal { return refusal }
        guard let route, let context else { return nil }
        metrics = shared.grpcMetrics.callStarted(route, protocol: .connect, shard: shard)
        let request: [UInt8]
        do {
            request = try decode(queryMessage ?? body)
        } catch {
            return responseMaker.response(response.answered(message: nil, status: RPCStatus(error)), handlerRan: false)
        }
        metrics?.messageReceived()
        if route.handler.synchronousUnary != nil {
            let outcome = RequestID.withThreadValue(requestID) {
                route.handler.runSynchronously(request: request, context: context)
            }
            switch outcome {
            case .answered(let message, let status):
                return responseMaker.response(response.answered(message: message, status: status), handlerRan: true)
            case .later(let rest):
                return start(later: later) { await route.handler.run(later: rest, context: context) }
            }
        }
        // A deadline spent on the way in (`Connect-Timeout-Ms: 0`) starts no handler.
        guard !context.deadlineHasPassed else {
            return responseMaker.response(
                response.answered(message: nil, status: RPCStatus(RPCError.deadlineExceeded)), handlerRan: false)
        }
        let requests = MessageStream()
        requests.yield(request)
        requests.finish()
        return start(later: later) { await route.handler.run(requests: requests, context: context) }
    }

    /// Ends the call with `error` unless it has ended: its handler is cancelled, and the response says `error`
    /// (a later one that cannot be sent, when the client left). Nothing to do before the handler runs.
    func end(with error: RPCError) {
        guard let task, response.abort(with: RPCStatus(error)) else { return }
        task.cancel()
    }

    /// A request body over the message limit, refused before the handler runs.
    func bodyTooLarge(limit: Int) -> HTTPResponse {
        Self.errorResponse(
            RPCStatus(code: .resourceExhausted, message: "The request body exceeds the limit of \(limit) bytes."),
            headers: baseHeaders)
    }

    /// Runs the handler as a task; its outcome, or the deadline's, becomes the response `later` gets.
    private func start(later: @escaping @Sendable (HTTPResponse) -> Void, _ body: @escaping @Sendable () async -> Void)
        -> HTTPResponse?
    {
        let requestID = requestID
        let task = Task { await RequestID.$taskValue.withValue(requestID) { await body() } }
        self.task = task
        // Cancelled when the call ends first, so a long deadline holds nothing after its call.
        let deadline = timeout.map { timeout in
            Task { [response] in
                try await Task.sleep(for: timeout)
                if response.abort(with: RPCStatus(RPCError.deadlineExceeded)) { task.cancel() }
            }
        }
        let maker = responseMaker
        response.onFinish { outcome in
            deadline?.cancel()
            later(maker.response(outcome, handlerRan: true))
        }
        return nil
    }

    /// The request body as the handler reads it: decompressed, and binary.
    private func decode(_ body: [UInt8]) throws(RPCError) -> [UInt8] {
        let limit = shared.configuration.maxReceiveMessageSize
        var message = body
        // Empty content is never compressed (the protocol forbids decompressing it).
        if let decompressor, !body.isEmpty { message = try decompressor.decompress(body[...], limit: limit) }
        guard message.count <= limit else {
            throw RPCError(
                code: .resourceExhausted, message: "Received message of \(message.count) bytes exceeds the limit of \(limit) bytes.")
        }
        if let transcoder { message = try transcoder.request(fromJSON: message) }
        return message
    }

    private var responseMaker: ResponseMaker {
        ResponseMaker(codec: codec, transcoder: transcoder, headers: baseHeaders, metrics: metrics)
    }

    /// Makes the response of an outcome, on whichever thread it comes.
    private struct ResponseMaker: Sendable {
        let codec: ConnectCodec
        let transcoder: JSONTranscoder?
        let headers: [(String, String)]
        let metrics: GRPCServerMetrics.Call?

        /// The message, or the error, with the handler's headers and its trailers as `trailer-` headers.
        func response(_ outcome: ConnectUnaryResponse.Outcome, handlerRan: Bool) -> HTTPResponse {
            var status = outcome.status
            var body: [UInt8] = []
            if status.code == .ok {
                if let message = outcome.message {
                    do {
                        body = try transcoder?.response(toJSON: message) ?? message
                    } catch {
                        status = RPCStatus(error)
                    }
                } else {
                    status = RPCStatus(code: .internal, message: "The method ended without a response message.")
                }
            }
            metrics?.finished(status.code, handlerRan: handlerRan)
            var metadata = outcome.headers
            for (key, value) in status.trailers { metadata.add(value, forKey: "trailer-" + key) }
            guard status.code == .ok else { return ConnectUnaryCall.errorResponse(status, headers: headers, metadata: metadata) }
            return HTTPResponse(
                status: 200, headers: ConnectUnaryCall.fields(codec.unaryContentType, headers, metadata), body: body)
        }
    }

    /// The content type, `headers` and the response metadata as header fields, in one array (this is every
    /// call's response).
    private static func fields(_ contentType: String, _ headers: [(String, String)], _ metadata: Metadata) -> HTTPHeaders {
        var fields: [(String, String)] = []
        fields.reserveCapacity(1 + headers.count + metadata.count)
        fields.append(("content-type", contentType))
        fields.append(contentsOf: headers)
        StatusFields.forEach(metadata) { fields.append(($0, String(decoding: $1, as: UTF8.self))) }
        return HTTPHeaders(fields)
    }

    /// A Connect error: the HTTP status of its code, a JSON body, whatever the request's codec.
    static func errorResponse(_ status: RPCStatus, headers: [(String, String)], metadata: Metadata = Metadata()) -> HTTPResponse {
        HTTPResponse(
            status: ConnectStatus.httpStatus(status.code), headers: fields("application/json", headers, metadata),
            body: Array(ConnectStatus.error(status).text.utf8))
    }
}
