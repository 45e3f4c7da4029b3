import RPCCore

/// The side of a call whose status travels in its response body (gRPC-Web, a Connect stream): how its request body
/// is decoded, how its response is framed, and the headers its response starts with (content type and CORS).
final class FramedBodyCall {
    let framing: BodyFraming
    let body: FramedResponseBody
    /// gRPC-Web text mode only.
    private var textDecoder: GRPCWebTextDecoder?
    /// A Connect stream in JSON only: its request messages become binary before the handler reads them.
    let transcoder: JSONTranscoder?
    /// `content-type`, then `headers` (the request ID and, for an allowed browser origin, the CORS headers).
    let responseHeaders: [(String, String)]

    init(framing: BodyFraming, headers: [(String, String)], transcoder: JSONTranscoder?) {
        self.framing = framing
        body = FramedResponseBody(framing: framing)
        textDecoder = framing == .grpcWeb(.text) ? GRPCWebTextDecoder() : nil
        self.transcoder = transcoder
        responseHeaders = [("content-type", framing.responseContentType)] + headers
    }

    /// Request body bytes as the deframer takes them: text mode's decoded, the others' as they are.
    func requestBytes(_ bytes: some Collection<UInt8>) throws(RPCError) -> [UInt8] {
        guard textDecoder != nil else { return Array(bytes) }
        do {
            return try textDecoder!.decode(bytes)
        } catch {
            throw error.rpcError
        }
    }

    /// A deframed request message as the handler reads it.
    func requestMessage(_ message: [UInt8]) throws(RPCError) -> [UInt8] {
        guard let transcoder else { return message }
        return try transcoder.request(fromJSON: message)
    }

    /// The request body ended: text mode must not stop inside a group.
    func requestEnded() throws(RPCError) {
        do {
            try textDecoder?.finish()
        } catch {
            throw error.rpcError
        }
    }
}
