/// A JSON value with object keys in a fixed order, written on one line.
public indirect enum JSONValue: Sendable {
    case string(String)
    /// Already in JSON number syntax.
    case number(String)
    case bool(Bool)
    case null
    /// JSON text checked by whoever made it (an object read from a file), written as it is.
    case raw([UInt8])
    case array([JSONValue])
    case object([(String, JSONValue)])

    /// The value as UTF-8 JSON text, keys in the order given (the same value is always the same bytes).
    public var text: String {
        var output = ""
        write(to: &output)
        return output
    }

    private func write(to output: inout String) {
        switch self {
        case .string(let value): Self.writeString(value, to: &output)
        case .number(let value): output += value
        case .bool(let value): output += value ? "true" : "false"
        case .null: output += "null"
        case .raw(let bytes): output += String(decoding: bytes, as: UTF8.self)
        case .array(let values):
            output += "["
            for (index, value) in values.enumerated() {
                if index > 0 { output += "," }
                value.write(to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { output += "," }
                Self.writeString(key, to: &output)
                output += ":"
                value.write(to: &output)
            }
            output += "}"
        }
    }

    private static func writeString(_ value: String, to output: inout String) {
        var bytes: [UInt8] = [UInt8(ascii: "\"")]
        bytes.reserveCapacity(value.utf8.count + 2)
        for byte in value.utf8 { JSONStringEscape.write(byte) { bytes.append($0) } }
        bytes.append(UInt8(ascii: "\""))
        output += String(decoding: bytes, as: UTF8.self)
    }
}

