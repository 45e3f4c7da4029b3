import RPCCore

/// The gRPC-Web side of one call: how its request body is decoded, how its response is framed, and the headers its
/// response starts with (content type and CORS).
final class GRPCWebCall {
    let body: GRPCWebResponseBody
    /// Text mode only.
    private var textDecoder: GRPCWebTextDecoder?
    /// `content-type`, then `headers` (the request ID and, for an allowed browser origin, the CORS headers).
    let responseHeaders: [(String, String)]

    init(mode: GRPCWebMode, headers: [(String, String)]) {
        body = GRPCWebResponseBody(mode: mode)
        textDecoder = mode == .text ? GRPCWebTextDecoder() : nil
        responseHeaders = [("content-type", mode.responseContentType)] + headers
    }

    /// Request body bytes as the deframer takes them: text mode's decoded, binary's as they are.
    func requestBytes(_ bytes: some Collection<UInt8>) throws(RPCError) -> [UInt8] {
        guard textDecoder != nil else { return Array(bytes) }
        do {
            return try textDecoder!.decode(bytes)
        } catch {
            throw error.rpcError
        }
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
