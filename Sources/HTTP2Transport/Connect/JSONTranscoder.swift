import ProtoJSON
import RPCCore

/// A method's messages between binary protobuf, which handlers read and write, and protobuf's JSON mapping, which a
/// Connect call in JSON sends and receives. One transcoder serves every method: the schema is the descriptors the
/// server embeds.
struct JSONTranscoder: Sendable {
    let schema: ProtoSchema
    let method: MethodType

    /// The transcoder of the method at `path`; nil when the schema does not describe it (the call is then refused).
    init?(schema: ProtoSchema, path: String) {
        guard let method = schema.methods[path] else { return nil }
        self.schema = schema
        self.method = method
    }

    /// A request from the client. Unknown fields are ignored, as Connect's own servers do, so a newer client can call
    /// an older server; anything else wrong is the client's INVALID_ARGUMENT.
    func request(fromJSON json: [UInt8]) throws(RPCError) -> [UInt8] {
        do {
            return try schema.binary(fromJSON: json, messageName: method.inputType, ignoringUnknownFields: true)
        } catch {
            throw RPCError(code: .invalidArgument, message: "The request is not valid JSON for \(method.inputType): \(error)")
        }
    }

    /// A response from a handler. It wrote the bytes itself, so a failure is the server's.
    func response(toJSON binary: [UInt8]) throws(RPCError) -> [UInt8] {
        do {
            return try schema.json(fromBinary: binary, messageName: method.outputType)
        } catch {
            throw RPCError(code: .internal, message: "The response could not be written as JSON: \(error)")
        }
    }
}

/// The response side of a Connect streaming call in JSON: each message the handler sends is transcoded before it
/// joins the call's response queue.
final class JSONResponseSink: ServerResponseSink {
    private let responses: GRPCResponseQueue
    private let transcoder: JSONTranscoder

    init(responses: GRPCResponseQueue, transcoder: JSONTranscoder) {
        self.responses = responses
        self.transcoder = transcoder
    }

    func sendHeaders(_ metadata: Metadata) { responses.sendHeaders(metadata) }

    func sendMessage(_ message: [UInt8]) async throws {
        try await responses.sendMessage(transcoder.response(toJSON: message))
    }

    func addTrailer(_ value: Metadata.Value, forKey key: String) { responses.addTrailer(value, forKey: key) }

    func finish(_ status: RPCStatus) { responses.finish(status) }

    var transportStatus: RPCStatus? { responses.transportStatus }
}
