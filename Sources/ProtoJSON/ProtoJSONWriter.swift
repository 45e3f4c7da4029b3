import Encodings
import ProtobufWire

/// Binary protobuf to the protobuf JSON mapping (protobuf.dev/programming-guides/json): lowerCamelCase names, fields
/// in declaration order, default values left out (unless the field tracks presence), enums by name (by number when
/// the name is unknown), 64-bit integers as strings, bytes in base64, `Timestamp` and `Duration` as strings. Unknown
/// fields are dropped, as the mapping has no place for them.
///
/// `emittingDefaults` also writes every field that cannot tell "unset" from its default (scalars, lists and maps
/// without presence), as protobuf's printers do when asked (`always_print_fields_with_no_presence`): a reader then
/// sees every such field by name. Message fields and fields with presence are still written only when set.
extension ProtoSchema {
    /// Nesting followed at most, as the binary reader allows.
    static let maximumDepth = 100

    public func json(fromBinary bytes: [UInt8], messageName: String, emittingDefaults: Bool = false)
        throws(ProtoJSONError) -> [UInt8]
    {
        guard let type = messages[messageName] else {
            throw ProtoJSONError(.invalidValue, at: "", "no message type \(messageName)")
        }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count * 2 + 2)
        try writeMessage(bytes[...], type, path: "", depth: 0, defaults: emittingDefaults, to: &output)
        return output
    }

    /// One field's values as read: scalars in wire form, messages, strings and bytes as their slices.
    private enum WireValue {
        case varint(UInt64)
        case fixed32(UInt32)
        case fixed64(UInt64)
        case bytes(ArraySlice<UInt8>)
    }

    /// `defaults`: ``json(fromBinary:messageName:emittingDefaults:)``'s `emittingDefaults`, for every nested message too.
    private func writeMessage(
        _ bytes: ArraySlice<UInt8>, _ type: MessageType, path: String, depth: Int, defaults: Bool,
        to output: inout [UInt8]
    ) throws(ProtoJSONError) {
        guard depth < Self.maximumDepth else { throw ProtoJSONError(.tooDeep, at: path, "messages nest too deep") }
        if let special = try wellKnownJSON(bytes, type, path: path) {
            output += special.utf8
            return
        }
        let values = try read(bytes, type, path: path)
        output.append(UInt8(ascii: "{"))
        var first = true
        for (index, field) in type.fields.enumerated() {
            var found = values[index] ?? []
            if found.isEmpty {
                guard defaults, !field.hasPresence else { continue }
                if !field.isRepeated { found = [Self.zero(field)] }
            } else if !defaults, !field.isRepeated, !field.hasPresence, Self.isDefault(found.last!) {
                continue
            }
            let fieldPath = path.isEmpty ? field.jsonName : "\(path).\(field.jsonName)"
            if !first { output.append(UInt8(ascii: ",")) }
            first = false
            Self.writeString(field.jsonName, to: &output)
            output.append(UInt8(ascii: ":"))
            if field.isRepeated {
                try writeRepeated(found, field, path: fieldPath, depth: depth, defaults: defaults, to: &output)
            } else if case .message = field.kind {
                // A message given in pieces is their merge: the concatenation parses as one.
                let merged = found.reduce(into: [UInt8]()) { all, value in if case .bytes(let slice) = value { all += slice } }
                try writeValue(.bytes(merged[...]), field, path: fieldPath, depth: depth, defaults: defaults, to: &output)
            } else {
                try writeValue(found.last!, field, path: fieldPath, depth: depth, defaults: defaults, to: &output)
            }
        }
        output.append(UInt8(ascii: "}"))
    }

    private func writeRepeated(
        _ values: [WireValue], _ field: FieldType, path: String, depth: Int, defaults: Bool, to output: inout [UInt8]
    ) throws(ProtoJSONError) {
        if case .message(let entryName) = field.kind, let entry = messages[entryName], entry.isMapEntry {
            try writeMap(values, entry, path: path, depth: depth, defaults: defaults, to: &output)
            return
        }
        output.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            try writeValue(value, field, path: "\(path)[\(index)]", depth: depth, defaults: defaults, to: &output)
        }
        output.append(UInt8(ascii: "]"))
    }

    /// A map: each entry's key as the member name (in the order the entries came; a key given twice keeps its last).
    private func writeMap(
        _ values: [WireValue], _ entry: MessageType, path: String, depth: Int, defaults: Bool, to output: inout [UInt8]
    ) throws(ProtoJSONError) {
        guard let keyField = entry.field(number: 1), let valueField = entry.field(number: 2) else {
            throw ProtoJSONError(.invalidValue, at: path, "map entry \(entry.fullName) lacks its key or value")
        }
        var order: [String] = []
        var members: [String: [UInt8]] = [:]
        for value in values {
            guard case .bytes(let entryBytes) = value else {
                throw ProtoJSONError(.malformedBinary, at: path, "a map entry is not length-delimited")
            }
            let entryValues = try read(entryBytes, entry, path: path)
            let keyValue = entryValues[entry.fields.firstIndex { $0.number == 1 }!]?.last
            var key: [UInt8] = []
            try writeValue(keyValue ?? Self.zero(keyField), keyField, path: path, depth: depth, defaults: defaults, to: &key)
            // Keys are strings in JSON: a number or bool key is quoted.
            let keyText = key.first == UInt8(ascii: "\"") ? key : [UInt8(ascii: "\"")] + key + [UInt8(ascii: "\"")]
            let name = String(decoding: keyText, as: UTF8.self)
            var written: [UInt8] = []
            let valueIndex = entry.fields.firstIndex { $0.number == 2 }!
            if case .message = valueField.kind {
                let merged = (entryValues[valueIndex] ?? []).reduce(into: [UInt8]()) { all, value in
                    if case .bytes(let slice) = value { all += slice }
                }
                try writeValue(
                    .bytes(merged[...]), valueField, path: "\(path)[\(name)]", depth: depth, defaults: defaults, to: &written)
            } else {
                let value = entryValues[valueIndex]?.last ?? Self.zero(valueField)
                try writeValue(value, valueField, path: "\(path)[\(name)]", depth: depth, defaults: defaults, to: &written)
            }
            if members[name] == nil { order.append(name) }
            members[name] = written
        }
        output.append(UInt8(ascii: "{"))
        for (index, name) in order.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            output += name.utf8
            output.append(UInt8(ascii: ":"))
            output += members[name]!
        }
        output.append(UInt8(ascii: "}"))
    }

    /// The encoding of a field's default value.
    private static func zero(_ field: FieldType) -> WireValue {
        switch field.kind {
        case .string, .bytes, .message: .bytes([])
        case .fixed32, .sfixed32, .float: .fixed32(0)
        case .fixed64, .sfixed64, .double: .fixed64(0)
        default: .varint(0)
        }
    }

    /// Every known field's values by field index, packed repeated numbers unpacked; unknown fields skipped.
    private func read(_ bytes: ArraySlice<UInt8>, _ type: MessageType, path: String) throws(ProtoJSONError)
        -> [Int: [WireValue]]
    {
        var values: [Int: [WireValue]] = [:]
        /// The field index of each oneof's member read last.
        var oneofMembers: [Int: Int] = [:]
        var reader = ProtoReader(bytes)
        var indices: [Int: Int] = [:]
        for (index, field) in type.fields.enumerated() { indices[field.number] = index }
        do {
            while let tag = try reader.nextTag() {
                guard let index = indices[tag.number] else {
                    _ = try reader.skipField(tag)
                    continue
                }
                let field = type.fields[index]
                let value: WireValue
                switch tag.wireType {
                case .varint: value = .varint(try reader.readVarint())
                case .fixed32: value = .fixed32(try reader.readFixed32())
                case .fixed64: value = .fixed64(try reader.readFixed64())
                case .lengthDelimited:
                    let slice = try reader.readLengthDelimited()
                    // Packed numbers (possibly none): each unpacked as the field's kind is written.
                    if field.isRepeated, field.kind.isPackable {
                        values[index, default: []] += try Self.unpack(slice, field)
                        continue
                    }
                    value = .bytes(slice)
                case .startGroup, .endGroup:
                    throw ProtoJSONError(.malformedBinary, at: path, "field \(field.name) is a group")
                }
                try Self.checkWireType(value, field, path: path)
                values[index, default: []].append(value)
                // A oneof member read clears the one read before it, as parsing the binary form does.
                if let oneof = field.oneofIndex {
                    if let previous = oneofMembers.updateValue(index, forKey: oneof), previous != index {
                        values[previous] = nil
                    }
                }
            }
        } catch let error as ProtoJSONError {
            throw error
        } catch {
            throw ProtoJSONError(.malformedBinary, at: path, "the message does not parse: \(error)")
        }
        return values
    }

    private static func unpack(_ bytes: ArraySlice<UInt8>, _ field: FieldType) throws -> [WireValue] {
        var reader = ProtoReader(bytes)
        var values: [WireValue] = []
        while !reader.isAtEnd {
            switch field.kind {
            case .fixed32, .sfixed32, .float: values.append(.fixed32(try reader.readFixed32()))
            case .fixed64, .sfixed64, .double: values.append(.fixed64(try reader.readFixed64()))
            default: values.append(.varint(try reader.readVarint()))
            }
        }
        return values
    }

    /// The wire type a field's kind is written with.
    private static func checkWireType(_ value: WireValue, _ field: FieldType, path: String) throws(ProtoJSONError) {
        let fits: Bool
        switch (field.kind, value) {
        case (.string, .bytes), (.bytes, .bytes), (.message, .bytes): fits = true
        case (.fixed32, .fixed32), (.sfixed32, .fixed32), (.float, .fixed32): fits = true
        case (.fixed64, .fixed64), (.sfixed64, .fixed64), (.double, .fixed64): fits = true
        case (.string, _), (.bytes, _), (.message, _), (.fixed32, _), (.sfixed32, _), (.float, _), (.fixed64, _),
            (.sfixed64, _), (.double, _):
            fits = false
        default:
            if case .varint = value { fits = true } else { fits = false }
        }
        guard fits else {
            throw ProtoJSONError(.malformedBinary, at: path, "field \(field.name) has the wrong wire type")
        }
    }

    private static func isDefault(_ value: WireValue) -> Bool {
        switch value {
        case .varint(let number): number == 0
        case .fixed32(let bits): bits == 0  // -0.0 is written, as protobuf's own printers do
        case .fixed64(let bits): bits == 0
        case .bytes(let slice): slice.isEmpty
        }
    }

    private func writeValue(
        _ value: WireValue, _ field: FieldType, path: String, depth: Int, defaults: Bool, to output: inout [UInt8]
    ) throws(ProtoJSONError) {
        switch (field.kind, value) {
        case (.int32, .varint(let raw)): output += String(Int32(truncatingIfNeeded: raw)).utf8
        case (.uint32, .varint(let raw)): output += String(UInt32(truncatingIfNeeded: raw)).utf8
        case (.sint32, .varint(let raw)):
            let zigzag = UInt32(truncatingIfNeeded: raw)
            output += String(Int32(bitPattern: (zigzag >> 1) ^ (0 &- (zigzag & 1)))).utf8
        case (.int64, .varint(let raw)): Self.writeQuoted(String(Int64(bitPattern: raw)), to: &output)
        case (.uint64, .varint(let raw)): Self.writeQuoted(String(raw), to: &output)
        case (.sint64, .varint(let raw)):
            Self.writeQuoted(String(Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))), to: &output)
        case (.bool, .varint(let raw)): output += (raw != 0 ? "true" : "false").utf8
        case (.enumeration(let name), .varint(let raw)):
            let number = Int32(truncatingIfNeeded: raw)
            if let known = enums[name]?.name(of: number) {
                Self.writeString(known, to: &output)
            } else {
                output += String(number).utf8
            }
        case (.fixed32, .fixed32(let bits)): output += String(bits).utf8
        case (.sfixed32, .fixed32(let bits)): output += String(Int32(bitPattern: bits)).utf8
        case (.float, .fixed32(let bits)): Self.writeFloatingPoint(Double(Float(bitPattern: bits)), Float(bitPattern: bits).description, to: &output)
        case (.fixed64, .fixed64(let bits)): Self.writeQuoted(String(bits), to: &output)
        case (.sfixed64, .fixed64(let bits)): Self.writeQuoted(String(Int64(bitPattern: bits)), to: &output)
        case (.double, .fixed64(let bits)): Self.writeFloatingPoint(Double(bitPattern: bits), Double(bitPattern: bits).description, to: &output)
        case (.string, .bytes(let slice)):
            guard let text = String(validating: slice, as: UTF8.self) else {
                throw ProtoJSONError(.malformedBinary, at: path, "a string field holds bytes that are not UTF-8")
            }
            Self.writeString(text, to: &output)
        case (.bytes, .bytes(let slice)): Self.writeQuoted(Base64.encode(slice, padded: true), to: &output)
        case (.message(let name), .bytes(let slice)):
            guard let type = messages[name] else { throw ProtoJSONError(.invalidValue, at: path, "no message type \(name)") }
            try writeMessage(slice, type, path: path, depth: depth + 1, defaults: defaults, to: &output)
        default:
            throw ProtoJSONError(.malformedBinary, at: path, "field \(field.name) has the wrong wire type")
        }
    }

    /// NaN and the infinities as the strings the mapping names them; a whole number without a fraction, as other
    /// printers write it (`1`, not `1.0`).
    private static func writeFloatingPoint(_ value: Double, _ shortest: String, to output: inout [UInt8]) {
        if value.isNaN {
            writeQuoted("NaN", to: &output)
        } else if value.isInfinite {
            writeQuoted(value < 0 ? "-Infinity" : "Infinity", to: &output)
        } else if shortest.hasSuffix(".0") {
            output += shortest.dropLast(2).utf8
        } else {
            output += shortest.utf8
        }
    }

    static func writeQuoted(_ text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        output += text.utf8
        output.append(UInt8(ascii: "\""))
    }

    static func writeString(_ text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in text.utf8 { JSONStringEscape.write(byte) { output.append($0) } }
        output.append(UInt8(ascii: "\""))
    }
}
