import ProtobufWire

/// The message and enum types a `FileDescriptorSet` declares, as the protobuf JSON mapping reads them: each field's
/// JSON name, type, cardinality and presence. Built once from the descriptors the server embeds for reflection, so one
/// transcoder serves every message, and a new field needs no JSON code.
public struct ProtoSchema: Sendable {
    /// By fully-qualified name, without a leading dot.
    public let messages: [String: MessageType]
    public let enums: [String: EnumType]
    /// By request path, `/entitlements.v1.EntitlementService/SyncStatus`.
    public let methods: [String: MethodType]

    /// Fails when the set or a descriptor in it does not parse, or a field names a type the set does not declare.
    public init(fileDescriptorSet: [UInt8]) throws(ProtoSchemaError) {
        var builder = Builder()
        do {
            var reader = ProtoReader(fileDescriptorSet)
            while let tag = try reader.nextTag() {
                guard tag.number == 1, tag.wireType == .lengthDelimited else {
                    _ = try reader.skipField(tag)
                    continue
                }
                try builder.file(try reader.decodeBytes(tag))
            }
        } catch let error as ProtoSchemaError {
            throw error
        } catch {
            throw ProtoSchemaError("the descriptor set does not parse: \(error)")
        }
        try builder.checkReferences()
        messages = builder.messages
        enums = builder.enums
        methods = builder.methods
    }

    /// Reads descriptors into types; names are resolved as protoc writes them (fully qualified, leading dot).
    private struct Builder {
        var messages: [String: MessageType] = [:]
        var enums: [String: EnumType] = [:]
        var methods: [String: MethodType] = [:]

        mutating func file(_ bytes: [UInt8]) throws {
            var reader = ProtoReader(bytes)
            var package = ""
            var syntax = ""
            var messageBytes: [[UInt8]] = []
            var enumBytes: [[UInt8]] = []
            var serviceBytes: [[UInt8]] = []
            while let tag = try reader.nextTag() {
                switch tag.number {
                case 2: package = try reader.decodeString(tag)
                case 4: messageBytes.append(try reader.decodeBytes(tag))
                case 5: enumBytes.append(try reader.decodeBytes(tag))
                case 6: serviceBytes.append(try reader.decodeBytes(tag))
                case 12: syntax = try reader.decodeString(tag)
                default: _ = try reader.skipField(tag)
                }
            }
            let proto3 = syntax == "proto3"
            for bytes in messageBytes { try message(bytes, scope: package, proto3: proto3) }
            for bytes in enumBytes { try enumeration(bytes, scope: package) }
            for bytes in serviceBytes { try service(bytes, scope: package) }
        }

        /// `ServiceDescriptorProto`: each method by its request path.
        private mutating func service(_ bytes: [UInt8], scope: String) throws {
            var reader = ProtoReader(bytes)
            var name = ""
            var methodBytes: [[UInt8]] = []
            while let tag = try reader.nextTag() {
                switch tag.number {
                case 1: name = try reader.decodeString(tag)
                case 2: methodBytes.append(try reader.decodeBytes(tag))
                default: _ = try reader.skipField(tag)
                }
            }
            let serviceName = scope.isEmpty ? name : "\(scope).\(name)"
            for bytes in methodBytes {
                let method = try Self.method(bytes, service: serviceName)
                methods[method.path] = method
            }
        }

        /// `MethodDescriptorProto`, with `MethodOptions.idempotency_level` (34).
        private static func method(_ bytes: [UInt8], service: String) throws -> MethodType {
            var reader = ProtoReader(bytes)
            var name = ""
            var input = ""
            var output = ""
            var clientStreaming = false
            var serverStreaming = false
            var idempotency: Int32 = 0
            while let tag = try reader.nextTag() {
                switch tag.number {
                case 1: name = try reader.decodeString(tag)
                case 2: input = try reader.decodeString(tag)
                case 3: output = try reader.decodeString(tag)
                case 4:
                    var options = ProtoReader(try reader.decodeBytes(tag))
                    while let option = try options.nextTag() {
                        if option.number == 34 { idempotency = try options.decodeInt32(option) } else { _ = try options.skipField(option) }
                    }
                case 5: clientStreaming = try reader.decodeBool(tag)
                case 6: serverStreaming = try reader.decodeBool(tag)
                default: _ = try reader.skipField(tag)
                }
            }
            func unqualified(_ type: String) -> String { type.hasPrefix(".") ? String(type.dropFirst()) : type }
            return MethodType(
                path: "/\(service)/\(name)", inputType: unqualified(input), outputType: unqualified(output),
                isClientStreaming: clientStreaming, isServerStreaming: serverStreaming, hasNoSideEffects: idempotency == 1)
        }

        private mutating func message(_ bytes: [UInt8], scope: String, proto3: Bool) throws {
            var reader = ProtoReader(bytes)
            var name = ""
            var fieldBytes: [[UInt8]] = []
            var nested: [[UInt8]] = []
            var nestedEnums: [[UInt8]] = []
            var isMapEntry = false
            var oneofCount = 0
            while let tag = try reader.nextTag() {
                switch tag.number {
                case 1: name = try reader.decodeString(tag)
                case 2: fieldBytes.append(try reader.decodeBytes(tag))
                case 3: nested.append(try reader.decodeBytes(tag))
                case 4: nestedEnums.append(try reader.decodeBytes(tag))
                case 7: isMapEntry = try Self.isMapEntry(try reader.decodeBytes(tag))
                case 8:
                    _ = try reader.skipField(tag)
                    oneofCount += 1
                default: _ = try reader.skipField(tag)
                }
            }
            let fullName = scope.isEmpty ? name : "\(scope).\(name)"
            let fields = try fieldBytes.map { bytes throws in try Self.field(bytes, proto3: proto3) }
            messages[fullName] = MessageType(fullName: fullName, fields: fields, isMapEntry: isMapEntry, oneofCount: oneofCount)
            for bytes in nested { try message(bytes, scope: fullName, proto3: proto3) }
            for bytes in nestedEnums { try enumeration(bytes, scope: fullName) }
        }

        /// `MessageOptions.map_entry` (7).
        private static func isMapEntry(_ bytes: [UInt8]) throws -> Bool {
            var reader = ProtoReader(bytes)
            var entry = false
            while let tag = try reader.nextTag() {
                if tag.number == 7 { entry = try reader.decodeBool(tag) } else { _ = try reader.skipField(tag) }
            }
            return entry
        }

        private static func field(_ bytes: [UInt8], proto3: Bool) throws -> FieldType {
            var reader = ProtoReader(bytes)
            var name = ""
            var number: Int32 = 0
            var label: Int32 = 1
            var type: Int32 = 0
            var typeName = ""
            var oneofIndex: Int32?
            var jsonName: String?
            var proto3Optional = false
            while let tag = try reader.nextTag() {
                switch tag.number {
                case 1: name = try reader.decodeString(tag)
                case 3: number = try reader.decodeInt32(tag)
                case 4: label = try reader.decodeInt32(tag)
                case 5: type = try reader.decodeInt32(tag)
                case 6: typeName = try reader.decodeString(tag)
                case 9: oneofIndex = try reader.decodeInt32(tag)
                case 10: jsonName = try reader.decodeString(tag)
                case 17: proto3Optional = try reader.decodeBool(tag)
                default: _ = try reader.skipField(tag)
                }
            }
            let referenced = typeName.hasPrefix(".") ? String(typeName.dropFirst()) : typeName
            let kind: FieldType.Kind
            switch type {
            case 1: kind = .double
            case 2: kind = .float
            case 3: kind = .int64
            case 4: kind = .uint64
            case 5: kind = .int32
            case 6: kind = .fixed64
            case 7: kind = .fixed32
            case 8: kind = .bool
            case 9: kind = .string
            case 11: kind = .message(referenced)
            case 12: kind = .bytes
            case 13: kind = .uint32
            case 14: kind = .enumeration(referenced)
            case 15: kind = .sfixed32
            case 16: kind = .sfixed64
            case 17: kind = .sint32
            case 18: kind = .sint64
            default: throw ProtoSchemaError("field \(name) has type \(type), which the JSON mapping does not take (groups)")
            }
            guard (1...FieldTag.maxFieldNumber).contains(Int(number)) else {
                throw ProtoSchemaError("field \(name) has number \(number)")
            }
            let repeated = label == 3
            let isMessage = if case .message = kind { true } else { false }
            return FieldType(
                name: name, jsonName: jsonName ?? FieldType.lowerCamelCase(name), number: Int(number), kind: kind,
                isRepeated: repeated,
                hasPresence: !repeated && (isMessage || oneofIndex != nil || proto3Optional || !proto3),
                oneofIndex: proto3Optional ? nil : oneofIndex.map { Int($0) },
                isPacked: repeated && proto3 && kind.isPackable)
        }

        private mutating func enumeration(_ bytes: [UInt8], scope: String) throws {
            var reader = ProtoReader(bytes)
            var name = ""
            var values: [(String, Int32)] = []
            while let tag = try reader.nextTag() {
                switch tag.number {
                case 1: name = try reader.decodeString(tag)
                case 2:
                    var valueReader = ProtoReader(try reader.decodeBytes(tag))
                    var valueName = ""
                    var number: Int32 = 0
                    while let valueTag = try valueReader.nextTag() {
                        switch valueTag.number {
                        case 1: valueName = try valueReader.decodeString(valueTag)
                        case 2: number = try valueReader.decodeInt32(valueTag)
                        default: _ = try valueReader.skipField(valueTag)
                        }
                    }
                    values.append((valueName, number))
                default: _ = try reader.skipField(tag)
                }
            }
            let fullName = scope.isEmpty ? name : "\(scope).\(name)"
            enums[fullName] = EnumType(fullName: fullName, values: values)
        }

        func checkReferences() throws(ProtoSchemaError) {
            for method in methods.values where messages[method.inputType] == nil || messages[method.outputType] == nil {
                throw ProtoSchemaError("\(method.path) names a message no file declares")
            }
            for message in messages.values {
                for field in message.fields {
                    switch field.kind {
                    case .message(let name) where messages[name] == nil:
                        throw ProtoSchemaError("\(message.fullName).\(field.name) names message \(name), which no file declares")
                    case .enumeration(let name) where enums[name] == nil:
                        throw ProtoSchemaError("\(message.fullName).\(field.name) names enum \(name), which no file declares")
                    default: continue
                    }
                }
            }
        }
    }
}

/// A message type: its fields in declaration order, found by number and by either name.
public struct MessageType: Sendable {
    public let fullName: String
    public let fields: [FieldType]
    /// A map field's entry (`key` 1, `value` 2), written as a JSON object's member.
    public let isMapEntry: Bool
    public let oneofCount: Int
    private let byNumber: [Int: Int]
    private let byName: [String: Int]

    init(fullName: String, fields: [FieldType], isMapEntry: Bool, oneofCount: Int) {
        self.fullName = fullName
        self.fields = fields
        self.isMapEntry = isMapEntry
        self.oneofCount = oneofCount
        var byNumber: [Int: Int] = [:]
        var byName: [String: Int] = [:]
        for (index, field) in fields.enumerated() {
            byNumber[field.number] = index
            byName[field.jsonName] = index
            byName[field.name] = index
        }
        self.byNumber = byNumber
        self.byName = byName
    }

    public func field(number: Int) -> FieldType? { byNumber[number].map { fields[$0] } }
    /// By its JSON name or its proto name, as the mapping accepts either.
    public func field(named name: String) -> FieldType? { byName[name].map { fields[$0] } }
}

/// One method of a service: what the Connect protocol needs to transcode and route a call.
public struct MethodType: Sendable {
    /// `/package.Service/Method`.
    public let path: String
    public let inputType: String
    public let outputType: String
    public let isClientStreaming: Bool
    public let isServerStreaming: Bool
    /// `option idempotency_level = NO_SIDE_EFFECTS;`: the method may be called with GET.
    public let hasNoSideEffects: Bool
}

/// One field of a ``MessageType``.
public struct FieldType: Sendable {
    public enum Kind: Sendable, Equatable {
        case double, float, int64, uint64, int32, fixed64, fixed32, bool, string, bytes, uint32, sfixed32, sfixed64
        case sint32, sint64
        /// By fully-qualified name.
        case message(String)
        case enumeration(String)

        /// Numbers and booleans: packed in proto3's repeated fields.
        var isPackable: Bool {
            switch self {
            case .string, .bytes, .message: false
            default: true
            }
        }
    }

    public let name: String
    public let jsonName: String
    public let number: Int
    public let kind: Kind
    public let isRepeated: Bool
    /// Set or not whatever its value (a message, a oneof member, proto3 `optional`, proto2): written when set, even
    /// to its default; otherwise a default value is not written at all.
    public let hasPresence: Bool
    /// The oneof it belongs to (not a proto3 `optional`'s synthetic one).
    public let oneofIndex: Int?
    /// Written packed (proto3's repeated numbers); read either way.
    public let isPacked: Bool

    /// protoc's JSON name for a field without one: `app_user_id` → `appUserId`.
    static func lowerCamelCase(_ name: String) -> String {
        var result = ""
        var upper = false
        for character in name {
            if character == "_" {
                upper = true
            } else {
                result.append(upper ? Character(character.uppercased()) : character)
                upper = false
            }
        }
        return result
    }
}

/// An enum type: names by number (the first, for numbers given twice) and numbers by name.
public struct EnumType: Sendable {
    public let fullName: String
    private let names: [Int32: String]
    private let numbers: [String: Int32]

    init(fullName: String, values: [(String, Int32)]) {
        self.fullName = fullName
        var names: [Int32: String] = [:]
        var numbers: [String: Int32] = [:]
        for (name, number) in values {
            if names[number] == nil { names[number] = name }
            numbers[name] = number
        }
        self.names = names
        self.numbers = numbers
    }

    public func name(of number: Int32) -> String? { names[number] }
    public func number(named name: String) -> Int32? { numbers[name] }
}

/// A descriptor set the JSON mapping cannot use.
public struct ProtoSchemaError: Error, Sendable, CustomStringConvertible {
    public let message: String
    init(_ message: String) { self.message = message }
    public var description: String { "protobuf schema: \(message)" }
}
