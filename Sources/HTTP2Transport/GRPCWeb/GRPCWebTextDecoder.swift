import Encodings
import RPCCore

/// Decodes a text-mode (`application/grpc-web-text`) request body as it arrives, one 4-character group at a time.
///
/// A client base64-encodes each flush on its own, so `=` padding may end any group, mid-body included; the body as a
/// whole is not one base64 string. Like Envoy's filter, a body whose length is not a multiple of 4, or that holds a
/// character outside the standard alphabet, is refused (the call ends with `INTERNAL`: the request does not parse).
struct GRPCWebTextDecoder {
    /// Characters of an unfinished group.
    private var pending: [UInt8] = []

    init() {
        pending.reserveCapacity(4)
    }

    /// The bytes of every complete group in `text` (after those left over from before).
    mutating func decode(_ text: some Collection<UInt8>) throws(GRPCWebTextError) -> [UInt8] {
        var decoded: [UInt8] = []
        decoded.reserveCapacity((pending.count + text.count) / 4 * 3)
        for byte in text {
            pending.append(byte)
            guard pending.count == 4 else { continue }
            guard let group = Base64.decode(utf8: pending, padding: .required) else { throw .invalidBase64 }
            decoded.append(contentsOf: group)
            pending.removeAll(keepingCapacity: true)
        }
        return decoded
    }

    /// The body ended: a partial group left over is an error (padding is mandatory).
    func finish() throws(GRPCWebTextError) {
        if !pending.isEmpty { throw .truncatedGroup }
    }
}

/// Why a text-mode request body does not decode.
enum GRPCWebTextError: Error, Equatable {
    /// A character outside the base64 alphabet, or padding that does not end its group.
    case invalidBase64
    /// The body ended inside a 4-character group.
    case truncatedGroup

    var rpcError: RPCError {
        switch self {
        case .invalidBase64: RPCError(code: .internal, message: "The gRPC-Web text request is not valid base64.")
        case .truncatedGroup:
            RPCError(code: .internal, message: "The gRPC-Web text request ends inside a base64 group (padding is required).")
        }
    }
}
