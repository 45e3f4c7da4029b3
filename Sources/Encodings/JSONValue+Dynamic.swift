extension JSONValue {
    /// A value built from dictionaries, arrays, strings, integers, doubles and booleans, objects'
    /// members in key order: for tools and tests that assemble documents as literals and change members
    /// before writing them. `nil` when some part is none of those, or a double that is not finite.
    public init?(sortingKeysOf value: Any) {
        switch value {
        case let string as String: self = .string(string)
        case let bool as Bool: self = .bool(bool)
        case let integer as any BinaryInteger: self = .number(String(describing: integer))
        case let double as Double:
            guard double.isFinite else { return nil }
            // Whole doubles as integers, as Foundation writes them: 1.0 is `1`.
            if let whole = Int64(exactly: double) {
                self = .number(String(whole))
            } else {
                self = .number(String(describing: double))
            }
        case let members as [String: Any]:
            var object: [(String, JSONValue)] = []
            for (key, member) in members.sorted(by: { $0.key < $1.key }) {
                guard let member = JSONValue(sortingKeysOf: member) else { return nil }
                object.append((key, member))
            }
            self = .object(object)
        case let elements as [Any]:
            var array: [JSONValue] = []
            for element in elements {
                guard let element = JSONValue(sortingKeysOf: element) else { return nil }
                array.append(element)
            }
            self = .array(array)
        default: return nil
        }
    }
}
