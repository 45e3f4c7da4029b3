import ProtobufWire

// A minimal decoder of google/protobuf/descriptor.proto: only what reflection needs to index a FileDescriptorSet
// by file name, symbol and extension. Every other field is kept in `unknownFields`. Files are served as the raw
// bytes they arrived in, never re-encoded.

/// `google.protobuf.FileDescriptorSet`, with each file kept as its raw serialized bytes.
struct FileDescriptorSet: ProtoMessage {
    /// Serialized `FileDescriptorProto`s (field 1), in set order.
    var file: [[UInt8]] = []
    var unknownFields: [UInt8] = []

    init() {}

    init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: file.append(try reader.decodeBytes(tag))
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    func encode(to writer: inout ProtoWriter) {
        writer.writeRepeatedBytes(1, file)
        writer.writeRaw(unknownFields)
    }
}

/// `google.protobuf.FileDescriptorProto`.
struct FileDescriptorProto: ProtoMessage {
    var name: String = ""
    var package: String = ""
    var dependency: [String] = []
    var messageType: [DescriptorProto] = []
    var enumType: [EnumDescriptorProto] = []
    var service: [ServiceDescriptorProto] = []
    var `extension`: [FieldDescriptorProto] = []
    var unknownFields: [UInt8] = []

    init() {}

    init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: name = try reader.decodeString(tag)
            case 2: package = try reader.decodeString(tag)
            case 3: dependency.append(try reader.decodeString(tag))
            case 4: messageType.append(try reader.decodeMessage(tag))
            case 5: enumType.append(try reader.decodeMessage(tag))
            case 6: service.append(try reader.decodeMessage(tag))
            case 7: `extension`.append(try reader.decodeMessage(tag))
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, name)
        writer.writeString(2, package)
        writer.writeRepeatedStrings(3, dependency)
        writer.writeRepeatedMessages(4, messageType)
        writer.writeRepeatedMessages(5, enumType)
        writer.writeRepeatedMessages(6, service)
        writer.writeRepeatedMessages(7, `extension`)
        writer.writeRaw(unknownFields)
    }
}

/// `google.protobuf.DescriptorProto`: a message type.
struct DescriptorProto: ProtoMessage {
    var name: String = ""
    var field: [FieldDescriptorProto] = []
    var nestedType: [DescriptorProto] = []
    var enumType: [EnumDescriptorProto] = []
    var `extension`: [FieldDescriptorProto] = []
    var unknownFields: [UInt8] = []

    init() {}

    init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: name = try reader.decodeString(tag)
            case 2: field.append(try reader.decodeMessage(tag))
            case 3: nestedType.append(try reader.decodeMessage(tag))
            case 4: enumType.append(try reader.decodeMessage(tag))
            case 6: `extension`.append(try reader.decodeMessage(tag))
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, name)
        writer.writeRepeatedMessages(2, field)
        writer.writeRepeatedMessages(3, nestedType)
        writer.writeRepeatedMessages(4, enumType)
        writer.writeRepeatedMessages(6, `extension`)
        writer.writeRaw(unknownFields)
    }
}

/// `google.protobuf.FieldDescriptorProto`: a field, or an extension when `extendee` is set.
struct FieldDescriptorProto: ProtoMessage {
    var name: String = ""
    /// Fully-qualified with a leading dot (`.pkg.Type`) as protoc writes it; empty for plain fields.
    var extendee: String = ""
    var number: Int32 = 0
    var unknownFields: [UInt8] = []

    init() {}

    init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: name = try reader.decodeString(tag)
            case 2: extendee = try reader.decodeString(tag)
            case 3: number = try reader.decodeInt32(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, name)
        writer.writeString(2, extendee)
        writer.writeInt32(3, number)
        writer.writeRaw(unknownFields)
    }
}

/// `google.protobuf.EnumDescriptorProto`.
struct EnumDescriptorProto: ProtoMessage {
    var name: String = ""
    var value: [NamedDescriptorProto] = []
    var unknownFields: [UInt8] = []

    init() {}

    init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: name = try reader.decodeString(tag)
            case 2: value.append(try reader.decodeMessage(tag))
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, name)
        writer.writeRepeatedMessages(2, value)
        writer.writeRaw(unknownFields)
    }
}

/// `google.protobuf.EnumValueDescriptorProto` and `MethodDescriptorProto`: reflection needs only their names.
struct NamedDescriptorProto: ProtoMessage {
    var name: String = ""
    var unknownFields: [UInt8] = []

    init() {}

    init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: name = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, name)
        writer.writeRaw(unknownFields)
    }
}

/// `google.protobuf.ServiceDescriptorProto`.
struct ServiceDescriptorProto: ProtoMessage {
    var name: String = ""
    var method: [NamedDescriptorProto] = []
    var unknownFields: [UInt8] = []

    init() {}

    init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: name = try reader.decodeString(tag)
            case 2: method.append(try reader.decodeMessage(tag))
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, name)
        writer.writeRepeatedMessages(2, method)
        writer.writeRaw(unknownFields)
    }
}
