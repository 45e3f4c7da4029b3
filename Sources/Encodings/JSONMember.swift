/// One member of a JSON object that a decoder reads into a property of `Root`: its key, and whether the object must
/// have it. A decoder lists its members once and ``JSONReader/readMembers(into:_:)`` reads them, so each type of a
/// store's answer says only which key goes where.
public struct JSONMember<Root> {
    let key: StaticString
    let isRequired: Bool
    /// Reads the member's value into its property; false for a `null` that leaves it unset.
    let read: (inout JSONReader, inout Root) throws(JSONReadError) -> Bool

    /// A member that may be missing: missing or `null` leaves the property nil.
    public static func optional<Value: JSONReadable>(_ key: StaticString, _ property: WritableKeyPath<Root, Value?>)
        -> JSONMember
    {
        JSONMember(key: key, isRequired: false) { reader, root throws(JSONReadError) in
            root[keyPath: property] = try reader.optional(Value.self)
            return true
        }
    }

    /// A member the object must have: missing or `null` fails the read.
    public static func required<Value: JSONReadable>(_ key: StaticString, _ property: WritableKeyPath<Root, Value>)
        -> JSONMember
    {
        JSONMember(key: key, isRequired: true) { reader, root throws(JSONReadError) in
            guard let value = try reader.optional(Value.self) else { return false }
            root[keyPath: property] = value
            return true
        }
    }
}

extension JSONReader {
    /// Reads an object into `root`, each of `members` into its property; other members are skipped.
    public mutating func readMembers<Root>(into root: inout Root, _ members: [JSONMember<Root>]) throws(JSONReadError) {
        var found = [Bool](repeating: false, count: members.count)
        try readObject { reader, key throws(JSONReadError) in
            guard let index = members.firstIndex(where: { key == $0.key }) else { return try reader.skipValue() }
            found[index] = try members[index].read(&reader, &root)
        }
        if let missing = members.indices.first(where: { members[$0].isRequired && !found[$0] }) {
            throw .missing(members[missing].key.description)
        }
    }
}

// The scalars and containers a member holds, read as ``JSONReader`` reads them.

extension String: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) { self = try reader.readString() }
}

extension Bool: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) { self = try reader.readBool() }
}

extension Int: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) { self = try reader.readInt() }
}

extension Int64: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) { self = try reader.readInt64() }
}

extension Array: JSONReadable where Element: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) { self = try reader.readArray(of: Element.self) }
}

/// An object as a map, every member's value a `Value` (labels, metadata).
extension Dictionary: JSONReadable where Key == String, Value: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        var map: [String: Value] = [:]
        try reader.readObject { reader, key throws(JSONReadError) in map[key.text] = try Value(json: &reader) }
        self = map
    }
}
