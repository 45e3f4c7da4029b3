import Encodings

/// The benchmark's request bodies, assembled as literals.
enum BenchJSON {
    struct NotJSON: Error, CustomStringConvertible {
        var description: String
    }

    static func bytes(_ object: [String: Any]) throws -> [UInt8] {
        guard let json = JSONValue(sortingKeysOf: object) else {
            throw NotJSON(description: "not a JSON object: \(object)")
        }
        return Array(json.text.utf8)
    }
}
