extension JSONValue: JSONReadable {
    /// Any JSON value as a tree, for documents whose shape is checked member by member after reading (key files);
    /// numbers stay as written. A key that appears twice keeps its last value, in its first place.
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        reader.skipWhitespace()
        switch reader.peek() {
        case UInt8(ascii: "{"):
            var members: [(String, JSONValue)] = []
            var places: [String: Int] = [:]
            try reader.readObject { reader, key throws(JSONReadError) in
                let value = try JSONValue(json: &reader)
                let name = key.text
                if let place = places[name] {
                    members[place].1 = value
                } else {
                    places[name] = members.count
                    members.append((name, value))
                }
            }
            self = .object(members)
        case UInt8(ascii: "["): self = .array(try reader.readArray(of: JSONValue.self))
        case UInt8(ascii: "\""): self = .string(try reader.readString())
        case UInt8(ascii: "t"), UInt8(ascii: "f"): self = .bool(try reader.readBool())
        case UInt8(ascii: "n"):
            try reader.readLiteral("null")
            self = .null
        default: self = .number(String(try reader.readNumberText()))
        }
    }

    /// An object's member, or nil (also when this is not an object).
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }
}

extension JSONValue {
    /// A string's text; nil for anything else.
    public var string: String? {
        if case .string(let text) = self { text } else { nil }
    }

    /// A number that is a whole value in the 64-bit range, a fraction truncated toward zero (as
    /// ``JSONReader/readInt64(truncatingFraction:)`` reads it); nil for anything else.
    public var int64: Int64? {
        guard case .number(let text) = self else { return nil }
        return try? JSONReader.read(Array(text.utf8)) { reader throws(JSONReadError) in
            try reader.readInt64(truncatingFraction: true)
        }
    }
}
