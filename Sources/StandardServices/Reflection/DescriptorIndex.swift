import ProtobufWire

/// A FileDescriptorSet indexed the way server reflection asks for it: by file name, by fully-qualified symbol and by
/// extension. Built once; lookups never decode again.
struct DescriptorIndex: Sendable {
    struct File: Sendable {
        let name: String
        /// The serialized `FileDescriptorProto` exactly as it was in the set.
        let bytes: [UInt8]
        let dependencies: [String]
    }

    private(set) var files: [File] = []
    private var fileByName: [String: Int] = [:]
    private var fileBySymbol: [String: Int] = [:]
    /// Message types, fully-qualified without a leading dot.
    private var messageTypes: Set<String> = []
    /// Extended type (fully-qualified, no leading dot) → extension number → declaring file.
    private var extensions: [String: [Int32: Int]] = [:]

    /// Fails with a ``ProtoDecodingError`` when the set or one of its files does not parse. A file name that
    /// repeats keeps its first occurrence, and so does a symbol declared twice.
    init(fileDescriptorSet: [UInt8]) throws {
        let set = try FileDescriptorSet(serializedBytes: fileDescriptorSet)
        for bytes in set.file {
            let file = try FileDescriptorProto(serializedBytes: bytes)
            guard fileByName[file.name] == nil else { continue }
            let index = files.count
            files.append(File(name: file.name, bytes: bytes, dependencies: file.dependency))
            fileByName[file.name] = index
            indexSymbols(of: file, fileIndex: index)
        }
    }

    private mutating func indexSymbols(of file: FileDescriptorProto, fileIndex: Int) {
        let scope = file.package
        if !scope.isEmpty {
            // Every enclosing package is a symbol too (protoc's DescriptorPool treats `pkg` and `pkg.sub` so), but a
            // package spans files: the first file declaring it answers.
            var prefix = ""
            for component in scope.split(separator: ".") {
                prefix = prefix.isEmpty ? String(component) : "\(prefix).\(component)"
                add(prefix, fileIndex)
            }
        }
        for message in file.messageType { indexMessage(message, in: scope, fileIndex: fileIndex) }
        for enumType in file.enumType { indexEnum(enumType, in: scope, fileIndex: fileIndex) }
        for service in file.service {
            let serviceName = qualified(service.name, in: scope)
            add(serviceName, fileIndex)
            for method in service.method { add(qualified(method.name, in: serviceName), fileIndex) }
        }
        for field in file.extension { indexExtension(field, in: scope, fileIndex: fileIndex) }
    }

    private mutating func indexMessage(_ message: DescriptorProto, in scope: String, fileIndex: Int) {
        let name = qualified(message.name, in: scope)
        add(name, fileIndex)
        messageTypes.insert(name)
        for field in message.field { add(qualified(field.name, in: name), fileIndex) }
        for nested in message.nestedType { indexMessage(nested, in: name, fileIndex: fileIndex) }
        for enumType in message.enumType { indexEnum(enumType, in: name, fileIndex: fileIndex) }
        for field in message.extension { indexExtension(field, in: name, fileIndex: fileIndex) }
    }

    /// Enum values are siblings of their enum in protobuf's scoping: `pkg.Msg.VALUE`, not `pkg.Msg.Enum.VALUE`.
    private mutating func indexEnum(_ enumType: EnumDescriptorProto, in scope: String, fileIndex: Int) {
        add(qualified(enumType.name, in: scope), fileIndex)
        for value in enumType.value { add(qualified(value.name, in: scope), fileIndex) }
    }

    private mutating func indexExtension(_ field: FieldDescriptorProto, in scope: String, fileIndex: Int) {
        add(qualified(field.name, in: scope), fileIndex)
        let extendee = Self.withoutLeadingDot(field.extendee)
        guard !extendee.isEmpty else { return }
        if extensions[extendee, default: [:]][field.number] == nil {
            extensions[extendee, default: [:]][field.number] = fileIndex
        }
    }

    private mutating func add(_ symbol: String, _ fileIndex: Int) {
        if fileBySymbol[symbol] == nil { fileBySymbol[symbol] = fileIndex }
    }

    private func qualified(_ name: String, in scope: String) -> String {
        scope.isEmpty ? name : "\(scope).\(name)"
    }

    private static func withoutLeadingDot(_ name: String) -> String {
        name.hasPrefix(".") ? String(name.dropFirst()) : name
    }

    // MARK: Lookups

    func fileIndex(named name: String) -> Int? {
        fileByName[name]
    }

    /// The file declaring a package, service, method, message (nested ones included), field, enum, enum value or
    /// extension; a leading dot is accepted.
    func fileIndex(containingSymbol symbol: String) -> Int? {
        fileBySymbol[Self.withoutLeadingDot(symbol)]
    }

    func fileIndex(extending type: String, number: Int32) -> Int? {
        extensions[Self.withoutLeadingDot(type)]?[number]
    }

    /// The extension numbers declared for a message type (sorted, possibly empty), or nil when the set has no such
    /// message type.
    func extensionNumbers(of type: String) -> [Int32]? {
        let type = Self.withoutLeadingDot(type)
        guard messageTypes.contains(type) else { return nil }
        return (extensions[type] ?? [:]).keys.sorted()
    }

    /// The file at `index` followed by its transitive dependencies (depth-first, each once), as serialized
    /// `FileDescriptorProto`s: what a client needs to build the file's descriptors. Dependencies missing from the
    /// set are left out.
    func fileWithDependencies(_ index: Int) -> [[UInt8]] {
        var seen: Set<Int> = [index]
        var order: [Int] = []
        var stack = [index]
        while let next = stack.popLast() {
            order.append(next)
            for dependency in files[next].dependencies.reversed() {
                guard let dependencyIndex = fileByName[dependency], seen.insert(dependencyIndex).inserted else {
                    continue
                }
                stack.append(dependencyIndex)
            }
        }
        return order.map { files[$0].bytes }
    }
}
