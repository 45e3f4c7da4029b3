import RPCCore

/// The echo metadata of one interop call ("Echo Metadata" and "Echo Status" in grpc's
/// `doc/interop-test-descriptions.md`), shared by ``InteropTestService`` and ``GRPCTestService``.
///
/// Request metadata `x-grpc-test-echo-initial` comes back as a response header, every
/// `x-grpc-test-echo-trailing-bin` value as a trailer, on successful and failed calls alike.
public struct InteropEcho: Sendable {
    public static let initialKey = "x-grpc-test-echo-initial"
    public static let trailingKey = "x-grpc-test-echo-trailing-bin"
    /// Request header asking for this many bytes of `x-interop-padding-bin` trailers (in 8 KiB values), for tests of
    /// trailers larger than a client or the server's send limit allows.
    public static let trailerPaddingKey = "x-interop-trailer-padding-bytes"

    let context: ServerContext
    let initial: String?
    let trailers: Metadata

    init(_ context: ServerContext) {
        self.context = context
        initial = context.metadata[string: Self.initialKey]
        var trailers = Metadata()
        for value in context.metadata[binary: Self.trailingKey] {
            trailers.addBinary(value, forKey: Self.trailingKey)
        }
        if let text = context.metadata[string: Self.trailerPaddingKey], var remaining = Int(text) {
            // Random bytes, which neither HPACK's Huffman code nor its table shrink: the block on the wire is this large.
            var generator = SystemRandomNumberGenerator()
            remaining = min(remaining, 16 * 1024 * 1024)
            while remaining > 0 {
                let count = min(remaining, 8 * 1024)
                let padding = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
                trailers.addBinary(padding, forKey: "x-interop-padding-bin")
                remaining -= count
            }
        }
        self.trailers = trailers
    }

    /// Sends `x-grpc-test-echo-initial` back as a response header, before any message.
    func sendHeaders() {
        guard let initial else { return }
        var headers = Metadata()
        headers.addString(initial, forKey: Self.initialKey)
        context.sendHeaders(headers)
    }

    /// Adds the echoed `-bin` values to the trailers of a successful call.
    func addTrailers() {
        for (key, value) in trailers {
            context.addTrailer(value, forKey: key)
        }
    }

    /// Throws the requested status (with the echoed trailers) when its code is not OK.
    func failIfRequested(_ status: Interop.EchoStatus?) throws(RPCError) {
        guard let status, status.code != 0 else { return }
        throw RPCError(code: RPCError.Code(rawValue: Int(status.code)), message: status.message, metadata: trailers)
    }

    /// Runs a handler body between the echoed header and the echoed trailers.
    ///
    /// Whatever the body throws keeps its status and gets the echoed trailers attached (unless it carries
    /// metadata of its own), since ``addTrailers()`` only runs when the body succeeds.
    func around<Value: Sendable>(_ body: () async throws -> Value) async throws(RPCError) -> Value {
        sendHeaders()
        do {
            let result = try await body()
            addTrailers()
            return result
        } catch {
            var rpcError = RPCError(from: error)
            if rpcError.metadata.isEmpty { rpcError.metadata = trailers }
            throw rpcError
        }
    }
}
