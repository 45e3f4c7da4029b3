public import ProtobufWire

/// Writes typed response messages of a streaming call.
public struct ResponseWriter<Message: ProtoMessage>: Sendable {
    let sink: any ServerResponseSink

    /// Suspends while the client is not reading fast enough; throws once the call is gone.
    public func write(_ message: Message) async throws {
        try await sink.sendMessage(message.serializedBytes())
    }
}

/// The typed request messages of a client- or bidirectional-streaming call.
public struct RequestMessages<Message: ProtoMessage>: AsyncSequence, Sendable {
    public typealias Element = Message
    let stream: MessageStream

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: MessageStream.AsyncIterator
        public mutating func next() async throws -> Message? {
            guard let bytes = try await base.next() else { return nil }
            return try decodeRequest(bytes)
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: stream.makeAsyncIterator()) }
}

/// A request that does not parse ends the call with `INTERNAL`, as the gRPC spec asks.
func decodeRequest<Message: ProtoMessage>(_ bytes: [UInt8]) throws(RPCError) -> Message {
    do {
        return try Message(serializedBytes: bytes)
    } catch {
        throw RPCError(code: .internal, message: "Could not parse the request message: \(error)", cause: error)
    }
}

/// A unary call carries exactly one request message.
func singleRequestBytes(_ stream: MessageStream) async throws -> [UInt8] {
    guard let bytes = try await stream.next() else { throw RPCError.noRequestMessage }
    guard try await stream.next() == nil else { throw RPCError.tooManyRequestMessages }
    return bytes
}

func singleRequest<Message: ProtoMessage>(_ stream: MessageStream) async throws -> Message {
    try decodeRequest(try await singleRequestBytes(stream))
}

extension RPCError {
    /// gRPC answers a unary call without exactly one request message with `UNIMPLEMENTED`.
    public static let noRequestMessage = RPCError(code: .unimplemented, message: "Unary call sent no request message.")
    public static let tooManyRequestMessages = RPCError(
        code: .unimplemented, message: "Unary call sent more than one request message.")
}

extension RPCRouter {
    public mutating func registerUnary<Request: ProtoMessage, Response: ProtoMessage>(
        _ method: MethodDescriptor,
        _ body: @escaping @Sendable (Request, ServerContext) async throws -> Response
    ) {
        register(method, RPCHandler(kind: .unary) { stream, context in
            let request: Request = try await singleRequest(stream)
            let response = try await body(request, context)
            try await context.responseSink.sendMessage(response.serializedBytes())
        })
    }

    /// A unary method whose implementation never suspends, such as a read of in-memory state.
    public mutating func registerSynchronousUnary<Request: ProtoMessage, Response: ProtoMessage>(
        _ method: MethodDescriptor,
        _ body: @escaping @Sendable (Request, ServerContext) throws -> Response
    ) {
        register(method, RPCHandler(synchronousUnary: { bytes, context in
            let request: Request = try decodeRequest(bytes)
            return .now(try body(request, context).serializedBytes())
        }))
    }

    /// A unary method that answers at once when it can (from memory) and otherwise hands back the rest of its work,
    /// which may suspend: only that part runs as a task, off the connection's thread. `body` encodes its response
    /// (``UnaryAnswer``).
    public mutating func registerUnaryWithFastPath<Request: ProtoMessage>(
        _ method: MethodDescriptor, _ body: @escaping @Sendable (Request, ServerContext) throws -> UnaryAnswer
    ) {
        register(method, RPCHandler(synchronousUnary: { bytes, context in try body(decodeRequest(bytes), context) }))
    }

    /// `endsAtShutdown`: see ``RPCHandler/endsAtShutdown``.
    public mutating func registerServerStreaming<Request: ProtoMessage, Response: ProtoMessage>(
        _ method: MethodDescriptor, endsAtShutdown: Bool = false,
        _ body: @escaping @Sendable (Request, ResponseWriter<Response>, ServerContext) async throws -> Void
    ) {
        register(method, RPCHandler(kind: .serverStreaming, endsAtShutdown: endsAtShutdown) { stream, context in
            let request: Request = try await singleRequest(stream)
            try await body(request, ResponseWriter(sink: context.responseSink), context)
        })
    }

    public mutating func registerClientStreaming<Request: ProtoMessage, Response: ProtoMessage>(
        _ method: MethodDescriptor,
        _ body: @escaping @Sendable (RequestMessages<Request>, ServerContext) async throws -> Response
    ) {
        register(method, RPCHandler(kind: .clientStreaming) { stream, context in
            let response = try await body(RequestMessages(stream: stream), context)
            try await context.responseSink.sendMessage(response.serializedBytes())
        })
    }

    public mutating func registerBidirectional<Request: ProtoMessage, Response: ProtoMessage>(
        _ method: MethodDescriptor,
        _ body: @escaping @Sendable (RequestMessages<Request>, ResponseWriter<Response>, ServerContext) async throws
            -> Void
    ) {
        register(method, RPCHandler(kind: .bidirectional) { stream, context in
            try await body(RequestMessages(stream: stream), ResponseWriter(sink: context.responseSink), context)
        })
    }
}
