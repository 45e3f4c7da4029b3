import Encodings
import ProtobufWire

/// The protobuf JSON mapping to binary protobuf: either name of a field (`appUserId`, `app_user_id`), enums by name or
/// number, 64-bit integers as strings or numbers, bytes in standard or URL-safe base64, `null` for the default. The
/// binary is written canonically (fields in number order, proto3 defaults left out, repeated numbers packed).
extension ProtoSchema {
    /// - Parameter ignoringUnknownFields: drop members the message does not have (and enum names it does not know)
    ///   instead of refusing them, as the mapping allows a parser to be told.
    public func binary(fromJSON bytes: [UInt8], messageName: String, ignoringUnknownFields: Bool = false)
        throws(ProtoJSONError) -> [UInt8]
    {
        guard let type = messages[messageName] else {
            throw ProtoJSONError(.invalidValue, at: "", "no message type \(messageName)")
        }
        let value: JSONValue
        do {
            value = try JSONReader.read(bytes) { (reader) throws(JSONReadError) in try JSONValue(json: &reader) }
        } catch {
            throw ProtoJSONError(.malformedJSON, at: "", "the body is not JSON: \(error.problem)")
        }
        var writer = ProtoWriter()
        try JSONToBinary(schema: self, ignoringUnknownFields: ignoringUnknownFields)
            .message(value, type, path: "", depth: 0, into: &writer)
        return writer.bytes
    }
}

/// One field value in wire form, before its tag is written.
private enum Encoded {
    case varint(UInt64)
    case fixed32(UInt32)
    case fixed64(UInt64)
    case bytes([UInt8])

    var isDefault: Bool {
        switch self {
        case .varint(let value): value == 0
        case .fixed32(let bits): bits == 0
        case .fixed64(let bits): bits == 0
        case .bytes(let bytes): bytes.isEmpty
        }
    }

    func write(field: Int, to writer: inout ProtoWriter) {
        switch self {
        case .varint(let value):
            writer.writeTag(field, .varint)
            writer.writeVarint(value)
        case .fixed32(let bits):
            writer.writeTag(field, .fixed32)
            writer.writeFixed32(bits)
        case .fixed64(let bits):
            writer.writeTag(field, .fixed64)
            writer.writeFixed64(bits)
        case .bytes(let bytes):
            writer.writeTag(field, .lengthDelimited)
            writer.writeVarint(UInt64(bytes.count))
            writer.writeRaw(bytes)
        }
    }

    /// The value without its tag, as a packed field holds it.
    func writeBare(to writer: inout ProtoWriter) {
        switch self {
        case .varint(let value): writer.writeVarint(value)
        case .fixed32(let bits): writer.writeFixed32(bits)
        case .fixed64(let bits): writer.writeFixed64(bits)
        case .bytes(let bytes): writer.writeRaw(bytes)
        }
    }
}

private struct JSONToBinary {
    let schema: ProtoSchema
    let ignoringUnknownFields: Bool

    func message(_ value: JSONValue, _ type: MessageType, path: String, depth: Int, into writer: inout ProtoWriter)
        throws(ProtoJSONError)
    {
        guard depth < ProtoSchema.maximumDepth else { throw ProtoJSONError(.tooDeep, at: path, "messages nest too deep") }
        if type.fullName == ProtoSchema.timestampName || type.fullName == ProtoSchema.durationName {
            try wellKnown(value, type, path: path, into: &writer)
            return
        }
        guard case .object(let members) = value else {
            throw ProtoJSONError(.invalidValue, at: path, "expected an object for \(type.fullName)")
        }
        var given: [Int: JSONValue] = [:]
        var oneofs: [Int: String] = [:]
        for (key, member) in members {
            let memberPath = path.isEmpty ? key : "\(path).\(key)"
            guard let field = type.field(named: key) else {
                if ignoringUnknownFields { continue }
                throw ProtoJSONError(.unknownField, at: memberPath, "\(type.fullName) has no field \(key)")
            }
            guard given[field.number] == nil else {
                throw ProtoJSONError(.duplicateField, at: memberPath, "the field is given twice (\(field.name))")
            }
            // null is the field's default: as if absent (it still counts for the checks above).
            given[field.number] = member
            if case .null = member { continue }
            if let oneof = field.oneofIndex {
                if let other = oneofs[oneof] {
                    throw ProtoJSONError(
                        .duplicateField, at: memberPath, "\(other) and \(field.jsonName) are of one oneof: give one")
                }
                oneofs[oneof] = field.jsonName
            }
        }
        // In field-number order, as protobuf's serializers write: the same message is the same bytes.
        for field in type.fields.sorted(by: { $0.number < $1.number }) {
            guard let member = given[field.number] else { continue }
            if case .null = member { continue }
            let fieldPath = path.isEmpty ? field.jsonName : "\(path).\(field.jsonName)"
            try self.field(member, field, path: fieldPath, depth: depth, into: &writer)
        }
    }

    private func field(_ value: JSONValue, _ field: FieldType, path: String, depth: Int, into writer: inout ProtoWriter)
        throws(ProtoJSONError)
    {
        if field.isRepeated {
            if case .message(let name) = field.kind, let entry = schema.messages[name], entry.isMapEntry {
                try map(value, field, entry, path: path, depth: depth, into: &writer)
                return
            }
            guard case .array(let elements) = value else {
                throw ProtoJSONError(.invalidValue, at: path, "expected an array")
            }
            var encoded: [Encoded] = []
            for (index, element) in elements.enumerated() {
                let elementPath = "\(path)[\(index)]"
                if case .null = element { throw ProtoJSONError(.invalidValue, at: elementPath, "null is no element") }
                if let value = try single(element, field, path: elementPath, depth: depth) { encoded.append(value) }
            }
            if field.isPacked, !encoded.isEmpty {
                var packed = ProtoWriter()
                for value in encoded { value.writeBare(to: &packed) }
                Encoded.bytes(packed.bytes).write(field: field.number, to: &writer)
            } else {
                for value in encoded { value.write(field: field.number, to: &writer) }
            }
            return
        }
        guard let encoded = try single(value, field, path: path, depth: depth) else { return }
        if !field.hasPresence, encoded.isDefault { return }
        encoded.write(field: field.number, to: &writer)
    }

    /// A map from a JSON object: one entry per member, its key read as the key field's kind.
    private func map(
        _ value: JSONValue, _ field: FieldType, _ entry: MessageType, path: String, depth: Int,
        into writer: inout ProtoWriter
    ) throws(ProtoJSONError) {
        guard case .object(let members) = value else { throw ProtoJSONError(.invalidValue, at: path, "expected an object") }
        guard let keyField = entry.field(number: 1), let valueField = entry.field(number: 2) else {
            throw ProtoJSONError(.invalidValue, at: path, "map entry \(entry.fullName) lacks its key or value")
        }
        for (key, member) in members {
            let memberPath = "\(path)[\(key)]"
            // A key is a string in JSON; a bool key is `"true"` or `"false"`, a number's is read from its digits.
            let keyValue: JSONValue =
                keyField.kind == .bool && (key == "true" || key == "false") ? .bool(key == "true") : .string(key)
            if case .null = member { throw ProtoJSONError(.invalidValue, at: memberPath, "a map value cannot be null") }
            var entryWriter = ProtoWriter()
            try single(keyValue, keyField, path: memberPath, depth: depth)?.write(field: 1, to: &entryWriter)
            try single(member, valueField, path: memberPath, depth: depth)?.write(field: 2, to: &entryWriter)
            Encoded.bytes(entryWriter.bytes).write(field: field.number, to: &writer)
        }
    }

    /// One value of a field; nil for an enum name unknown while unknown fields are ignored.
    private func single(_ value: JSONValue, _ field: FieldType, path: String, depth: Int) throws(ProtoJSONError)
        -> Encoded?
    {
        switch field.kind {
        case .int32: return .varint(UInt64(bitPattern: Int64(try integer(value, in: Int64(Int32.min)...Int64(Int32.max), path: path))))
        case .sint32:
            let number = Int32(try integer(value, in: Int64(Int32.min)...Int64(Int32.max), path: path))
            return .varint(UInt64(UInt32(bitPattern: (number << 1) ^ (number >> 31))))
        case .sfixed32:
            return .fixed32(UInt32(bitPattern: Int32(try integer(value, in: Int64(Int32.min)...Int64(Int32.max), path: path))))
        case .uint32: return .varint(UInt64(try integer(value, in: 0...Int64(UInt32.max), path: path)))
        case .fixed32: return .fixed32(UInt32(try integer(value, in: 0...Int64(UInt32.max), path: path)))
        case .int64: return .varint(UInt64(bitPattern: try integer(value, in: Int64.min...Int64.max, path: path)))
        case .sint64:
            let number = try integer(value, in: Int64.min...Int64.max, path: path)
            return .varint(UInt64(bitPattern: (number << 1) ^ (number >> 63)))
        case .sfixed64: return .fixed64(UInt64(bitPattern: try integer(value, in: Int64.min...Int64.max, path: path)))
        case .uint64: return .varint(try unsigned64(value, path: path))
        case .fixed64: return .fixed64(try unsigned64(value, path: path))
        case .bool:
            guard case .bool(let flag) = value else { throw ProtoJSONError(.invalidValue, at: path, "expected true or false") }
            return .varint(flag ? 1 : 0)
        case .double: return .fixed64(try floatingPoint(value, path: path).bitPattern)
        case .float:
            let number = try floatingPoint(value, path: path)
            guard number.isNaN || number.isInfinite || abs(number) <= Double(Float.greatestFiniteMagnitude) else {
                throw ProtoJSONError(.invalidValue, at: path, "the number is out of a float's range")
            }
            return .fixed32(Float(number).bitPattern)
        case .string:
            guard case .string(let text) = value else { throw ProtoJSONError(.invalidValue, at: path, "expected a string") }
            return .bytes(Array(text.utf8))
        case .bytes:
            guard case .string(let text) = value else {
                throw ProtoJSONError(.invalidValue, at: path, "expected base64 in a string")
            }
            let alphabet: Base64.Alphabet = text.contains(where: { $0 == "-" || $0 == "_" }) ? .url : .standard
            guard let bytes = Base64.decode(text, alphabet: alphabet, padding: .optional) else {
                throw ProtoJSONError(.invalidValue, at: path, "the string is not base64")
            }
            return .bytes(bytes)
        case .enumeration(let name):
            guard let type = schema.enums[name] else { throw ProtoJSONError(.invalidValue, at: path, "no enum \(name)") }
            switch value {
            case .string(let text):
                guard let number = type.number(named: text) else {
                    if ignoringUnknownFields { return nil }
                    throw ProtoJSONError(.invalidValue, at: path, "\(name) has no value \(text)")
                }
                return .varint(UInt64(bitPattern: Int64(number)))
            default:
                return .varint(UInt64(bitPattern: Int64(try integer(value, in: Int64(Int32.min)...Int64(Int32.max), path: path))))
            }
        case .message(let name):
            guard let type = schema.messages[name] else { throw ProtoJSONError(.invalidValue, at: path, "no message \(name)") }
            var nested = ProtoWriter()
            try message(value, type, path: path, depth: depth + 1, into: &nested)
            return .bytes(nested.bytes)
        }
    }

    /// A whole number in `range`: a JSON number (`1`, `1.0`, `1e2`) or a string holding one.
    private func integer(_ value: JSONValue, in range: ClosedRange<Int64>, path: String) throws(ProtoJSONError) -> Int64 {
        let text: String
        switch value {
        case .number(let written): text = written
        case .string(let written): text = written
        default: throw ProtoJSONError(.invalidValue, at: path, "expected an integer")
        }
        if let exact = Int64(text), range.contains(exact) { return exact }
        // An exponent or a fraction that still makes a whole number, exactly representable.
        if text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }), let number = Double(text), number.isFinite,
            number.rounded() == number, abs(number) <= 9_007_199_254_740_992, range.contains(Int64(number))
        {
            return Int64(number)
        }
        throw ProtoJSONError(
            .invalidValue, at: path, "expected a whole number from \(range.lowerBound) to \(range.upperBound)")
    }

    private func unsigned64(_ value: JSONValue, path: String) throws(ProtoJSONError) -> UInt64 {
        if case .string(let text) = value, let exact = UInt64(text) { return exact }
        if case .number(let text) = value, let exact = UInt64(text) { return exact }
        return UInt64(try integer(value, in: 0...Int64.max, path: path))
    }

    private func floatingPoint(_ value: JSONValue, path: String) throws(ProtoJSONError) -> Double {
        switch value {
        case .number(let text):
            if let number = Double(text), number.isFinite { return number }
        case .string("NaN"): return .nan
        case .string("Infinity"): return .infinity
        case .string("-Infinity"): return -.infinity
        case .string(let text):
            if let number = Double(text), number.isFinite, !text.isEmpty, text.first != " " { return number }
        default: break
        }
        throw ProtoJSONError(.invalidValue, at: path, "expected a number, \"NaN\", \"Infinity\" or \"-Infinity\"")
    }

    private func wellKnown(_ value: JSONValue, _ type: MessageType, path: String, into writer: inout ProtoWriter)
        throws(ProtoJSONError)
    {
        guard case .string(let text) = value else {
            throw ProtoJSONError(.invalidValue, at: path, "expected \(type.fullName) as a string")
        }
        let parsed =
            type.fullName == ProtoSchema.timestampName
            ? ProtoSchema.timestamp(fromJSON: text) : ProtoSchema.duration(fromJSON: text)
        guard let parsed else {
            let example = type.fullName == ProtoSchema.timestampName ? "\"2026-12-01T10:00:00Z\"" : "\"1.5s\""
            throw ProtoJSONError(.invalidValue, at: path, "expected \(type.fullName) such as \(example)")
        }
        if parsed.seconds != 0 { Encoded.varint(UInt64(bitPattern: parsed.seconds)).write(field: 1, to: &writer) }
        if parsed.nanos != 0 { Encoded.varint(UInt64(bitPattern: Int64(parsed.nanos))).write(field: 2, to: &writer) }
    }
}
