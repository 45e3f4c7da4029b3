/// Why a message cannot be transcoded: where (a path of JSON names, `items[2].expiresAt`) and what is wrong, in words
/// a client can act on. Never quotes more of the input than the offending value's kind.
public struct ProtoJSONError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The binary message does not parse (a truncated field, a wrong wire type for the field).
        case malformedBinary = "malformed_binary"
        /// The JSON text does not parse.
        case malformedJSON = "malformed_json"
        /// A member the message does not have.
        case unknownField = "unknown_field"
        /// A value of the wrong JSON type, or out of the field's range.
        case invalidValue = "invalid_value"
        /// Two members for one field, or for one oneof.
        case duplicateField = "duplicate_field"
        /// Messages nested deeper than the mapping follows.
        case tooDeep = "too_deep"
    }

    public let code: Code
    public let path: String
    public let message: String

    init(_ code: Code, at path: String, _ message: String) {
        self.code = code
        self.path = path
        self.message = message
    }

    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}
