import BoundedText
import Encodings
import RPCCore

/// How the Connect protocol writes a call's status: a unary call's HTTP status and error body, a stream's
/// end-of-stream message. Codes are gRPC's, named in snake_case; the HTTP status of each is the table of the protocol
/// as amended by Connect's RFC 003 ("HTTP codes").
enum ConnectStatus {
    private static let codeNames = [
        "ok", "canceled", "unknown", "invalid_argument", "deadline_exceeded", "not_found", "already_exists",
        "permission_denied", "resource_exhausted", "failed_precondition", "aborted", "out_of_range", "unimplemented",
        "internal", "unavailable", "data_loss", "unauthenticated",
    ]
    private static let httpStatuses = [200, 499, 500, 400, 504, 404, 409, 403, 429, 400, 409, 400, 501, 500, 503, 500, 401]

    /// Codes outside gRPC's range are `unknown`, as clients read them.
    private static func index(_ code: RPCError.Code) -> Int {
        codeNames.indices.contains(code.rawValue) ? code.rawValue : RPCError.Code.unknown.rawValue
    }

    static func codeName(_ code: RPCError.Code) -> String { codeNames[index(code)] }

    static func httpStatus(_ code: RPCError.Code) -> Int { httpStatuses[index(code)] }

    /// `{"code": …, "message": …}`: a unary error's body, and the `error` of an end-of-stream message. The message is
    /// bounded as gRPC's is.
    static func error(_ status: RPCStatus) -> JSONValue {
        var members: [(String, JSONValue)] = [("code", .string(codeName(status.code)))]
        if !status.message.isEmpty {
            members.append(("message", .string(String(status.message.truncated(toUTF8Bytes: RPCStatus.maxMessageBytes)))))
        }
        return .object(members)
    }

    /// Metadata as the end-of-stream message holds it: each key with its values in order, `-bin` values base64'd.
    static func metadata(_ metadata: Metadata) -> JSONValue {
        var members: [(String, [JSONValue])] = []
        StatusFields.forEach(metadata) { key, value in
            let text = JSONValue.string(String(decoding: value, as: UTF8.self))
            if let index = members.firstIndex(where: { $0.0 == key }) {
                members[index].1.append(text)
            } else {
                members.append((key, [text]))
            }
        }
        return .object(members.map { ($0.0, .array($0.1)) })
    }

    /// The last envelope of a stream (flag `0x02`), in JSON whatever the stream's codec: `{}` for a bare OK,
    /// otherwise the error and the trailers.
    static func endOfStreamFrame(_ status: RPCStatus) -> [UInt8] {
        var members: [(String, JSONValue)] = []
        if status.code != .ok { members.append(("error", error(status))) }
        if !status.trailers.isEmpty { members.append(("metadata", metadata(status.trailers))) }
        return MessageFraming.frame(Array(JSONValue.object(members).text.utf8), flags: endOfStreamFlag)
    }

    static let endOfStreamFlag: UInt8 = 0x02
}
