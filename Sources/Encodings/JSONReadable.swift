/// A value a hand-written decoder reads from JSON with ``JSONReader``: the answers of the stores' APIs, key sets.
public protocol JSONReadable {
    init(json reader: inout JSONReader) throws(JSONReadError)
}

extension JSONReader {
    /// Reads the document `bytes` as one `Value`.
    public static func read<Value: JSONReadable>(_ type: Value.Type, from bytes: [UInt8]) throws(JSONReadError) -> Value {
        try read(bytes) { reader throws(JSONReadError) in try Value(json: &reader) }
    }

    /// Reads an array of `Value`s.
    public mutating func readArray<Value: JSONReadable>(of type: Value.Type) throws(JSONReadError) -> [Value] {
        var values: [Value] = []
        try readArray { reader throws(JSONReadError) in values.append(try Value(json: &reader)) }
        return values
    }

    /// A `Value`, or nil for `null` (a missing member stays nil in the caller).
    public mutating func optional<Value: JSONReadable>(_ type: Value.Type) throws(JSONReadError) -> Value? {
        try readOptional { reader throws(JSONReadError) in try Value(json: &reader) }
    }
}

extension JSONReadError {
    /// A member the reader requires is not in its object (or is `null`).
    public static func missing(_ key: String) -> JSONReadError {
        JSONReadError(problem: "`\(key)` is missing")
    }
}
