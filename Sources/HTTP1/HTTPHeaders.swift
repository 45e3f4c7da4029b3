/// An ordered list of header fields. Names are stored lowercased (HTTP field names are
/// case-insensitive, and HTTP/2 requires lowercase); a name may appear more than once.
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    public struct Field: Sendable, Hashable {
        /// Always lowercase.
        public let name: String
        public var value: String
    }

    public typealias Element = (name: String, value: String)

    public private(set) var fields: [Field]

    public init() {
        fields = []
    }

    /// Names are lowercased; order and duplicates are kept.
    public init(_ pairs: [(String, String)]) {
        fields = pairs.map { Field(name: HTTPHeaders.lowercased($0.0), value: $0.1) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    public var count: Int { fields.count }
    public var isEmpty: Bool { fields.isEmpty }

    /// Appends a field, keeping any existing fields of the same name.
    public mutating func add(name: String, value: String) {
        fields.append(Field(name: HTTPHeaders.lowercased(name), value: value))
    }

    /// Appends a field whose name the caller guarantees is already lowercase.
    internal mutating func addLowercased(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field of this name with a single one (at the position of the first), or appends it.
    public mutating func replaceOrAdd(name: String, value: String) {
        let key = HTTPHeaders.lowercased(name)
        if let first = fields.firstIndex(where: { $0.name == key }) {
            fields[first].value = value
            var index = fields.index(after: first)
            while index < fields.endIndex {
                if fields[index].name == key { fields.remove(at: index) } else { index += 1 }
            }
        } else {
            fields.append(Field(name: key, value: value))
        }
    }

    /// Removes every field of this name.
    public mutating func remove(name: String) {
        let key = HTTPHeaders.lowercased(name)
        fields.removeAll { $0.name == key }
    }

    public func contains(_ name: String) -> Bool {
        let key = HTTPHeaders.lowercased(name)
        return fields.contains { $0.name == key }
    }

    /// The first value of the field, if present. Setting replaces every field of this name; setting nil removes them.
    public subscript(name: String) -> String? {
        get {
            let key = HTTPHeaders.lowercased(name)
            return fields.first { $0.name == key }?.value
        }
        set {
            if let newValue { replaceOrAdd(name: name, value: newValue) } else { remove(name: name) }
        }
    }

    /// Every value of the field, in order.
    public func values(for name: String) -> [String] {
        let key = HTTPHeaders.lowercased(name)
        return fields.compactMap { $0.name == key ? $0.value : nil }
    }

    public struct Iterator: IteratorProtocol {
        private var base: IndexingIterator<[Field]>
        fileprivate init(_ fields: [Field]) { base = fields.makeIterator() }
        public mutating func next() -> (name: String, value: String)? {
            guard let field = base.next() else { return nil }
            return (field.name, field.value)
        }
    }

    public func makeIterator() -> Iterator { Iterator(fields) }

    public var underestimatedCount: Int { fields.count }

    public var description: String {
        "[" + fields.map { "\($0.name): \($0.value)" }.joined(separator: ", ") + "]"
    }

    /// ASCII lowercasing; returns the string itself when it has no uppercase ASCII letters.
    internal static func lowercased(_ name: String) -> String {
        // Over the contiguous bytes: most names are lowercase already, and this runs for every field made.
        var name = name
        guard name.withUTF8({ bytes in bytes.contains { $0 &- 0x41 < 26 } }) else { return name }
        let utf8 = name.utf8
        return String(unsafeUninitializedCapacity: utf8.count) { buffer in
            var index = 0
            for byte in utf8 {
                buffer[index] = byte &- 0x41 < 26 ? byte | 0x20 : byte
                index += 1
            }
            return index
        }
    }
}
