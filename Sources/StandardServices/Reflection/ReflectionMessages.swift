public import ProtobufWire

// Codecs for Protos/grpc/reflection/v1/reflection.proto. grpc.reflection.v1alpha declares the same messages with
// the same field numbers, so these types serve both versions; only the service name differs.

/// `grpc.reflection.v1.ServerReflectionRequest`.
public struct ServerReflectionRequest: ProtoMessage {
    /// The `message_request` oneof.
    public enum MessageRequest: Sendable, Hashable {
        /// Field 3: a file by the name it was compiled under, such as `grpc/health/v1/health.proto`.
        case fileByFilename(String)
        /// Field 4: the file declaring a fully-qualified symbol (`pkg.Service`, `pkg.Service.Method`, `pkg.Type`).
        case fileContainingSymbol(String)
        /// Field 5.
        case fileContainingExtension(ExtensionRequest)
        /// Field 6: a fully-qualified message type name.
        case allExtensionNumbersOfType(String)
        /// Field 7: the content is not checked (clients send `""` or `"*"`).
        case listServices(String)
    }

    public var host: String = ""
    /// nil when the client set none of the oneof's fields.
    public var messageRequest: MessageRequest?
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(host: String = "", _ messageRequest: MessageRequest?) {
        self.host = host
        self.messageRequest = messageRequest
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: host = try reader.decodeString(tag)
            case 3: messageRequest = .fileByFilename(try reader.decodeString(tag))
            case 4: messageRequest = .fileContainingSymbol(try reader.decodeString(tag))
            case 5: messageRequest = .fileContainingExtension(try reader.decodeMessage(tag))
            case 6: messageRequest = .allExtensionNumbersOfType(try reader.decodeString(tag))
            case 7: messageRequest = .listServices(try reader.decodeString(tag))
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, host)
        switch messageRequest {
        case .fileByFilename(let name)?: writer.writeOneofString(3, name)
        case .fileContainingSymbol(let symbol)?: writer.writeOneofString(4, symbol)
        case .fileContainingExtension(let request)?: writer.writeMessage(5, request)
        case .allExtensionNumbersOfType(let type)?: writer.writeOneofString(6, type)
        case .listServices(let content)?: writer.writeOneofString(7, content)
        case nil: break
        }
        writer.writeRaw(unknownFields)
    }
}

/// `grpc.reflection.v1.ExtensionRequest`.
public struct ExtensionRequest: ProtoMessage {
    /// Fully-qualified, without a leading dot: `pkg.Type`.
    public var containingType: String = ""
    public var extensionNumber: Int32 = 0
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(containingType: String, extensionNumber: Int32) {
        self.containingType = containingType
        self.extensionNumber = extensionNumber
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: containingType = try reader.decodeString(tag)
            case 2: extensionNumber = try reader.decodeInt32(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, containingType)
        writer.writeInt32(2, extensionNumber)
        writer.writeRaw(unknownFields)
    }
}

/// `grpc.reflection.v1.ServerReflectionResponse`.
public struct ServerReflectionResponse: ProtoMessage {
    /// The `message_response` oneof.
    public enum MessageResponse: Sendable, Hashable {
        /// Field 4: answers file_by_filename, file_containing_symbol and file_containing_extension.
        case fileDescriptorResponse(FileDescriptorResponse)
        /// Field 5: answers all_extension_numbers_of_type.
        case allExtensionNumbersResponse(ExtensionNumberResponse)
        /// Field 6: answers list_services.
        case listServicesResponse(ListServiceResponse)
        /// Field 7: any request that failed.
        case errorResponse(ErrorResponse)
    }

    public var validHost: String = ""
    public var originalRequest: ServerReflectionRequest?
    public var messageResponse: MessageResponse?
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(validHost: String = "", originalRequest: ServerReflectionRequest?, _ messageResponse: MessageResponse?) {
        self.validHost = validHost
        self.originalRequest = originalRequest
        self.messageResponse = messageResponse
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: validHost = try reader.decodeString(tag)
            case 2: originalRequest = try reader.decodeMessage(tag)
            case 4: messageResponse = .fileDescriptorResponse(try reader.decodeMessage(tag))
            case 5: messageResponse = .allExtensionNumbersResponse(try reader.decodeMessage(tag))
            case 6: messageResponse = .listServicesResponse(try reader.decodeMessage(tag))
            case 7: messageResponse = .errorResponse(try reader.decodeMessage(tag))
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, validHost)
        writer.writeMessage(2, originalRequest)
        switch messageResponse {
        case .fileDescriptorResponse(let response)?: writer.writeMessage(4, response)
        case .allExtensionNumbersResponse(let response)?: writer.writeMessage(5, response)
        case .listServicesResponse(let response)?: writer.writeMessage(6, response)
        case .errorResponse(let response)?: writer.writeMessage(7, response)
        case nil: break
        }
        writer.writeRaw(unknownFields)
    }
}

/// `grpc.reflection.v1.FileDescriptorResponse`.
public struct FileDescriptorResponse: ProtoMessage {
    /// Serialized `google.protobuf.FileDescriptorProto`s.
    public var fileDescriptorProto: [[UInt8]] = []
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(fileDescriptorProto: [[UInt8]]) {
        self.fileDescriptorProto = fileDescriptorProto
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: fileDescriptorProto.append(try reader.decodeBytes(tag))
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeRepeatedBytes(1, fileDescriptorProto)
        writer.writeRaw(unknownFields)
    }
}

/// `grpc.reflection.v1.ExtensionNumberResponse`.
public struct ExtensionNumberResponse: ProtoMessage {
    public var baseTypeName: String = ""
    public var extensionNumber: [Int32] = []
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(baseTypeName: String, extensionNumber: [Int32]) {
        self.baseTypeName = baseTypeName
        self.extensionNumber = extensionNumber
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: baseTypeName = try reader.decodeString(tag)
            case 2: try reader.decodeRepeatedInt32(tag, into: &extensionNumber)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, baseTypeName)
        writer.writePackedInt32(2, extensionNumber)
        writer.writeRaw(unknownFields)
    }
}

/// `grpc.reflection.v1.ListServiceResponse`.
public struct ListServiceResponse: ProtoMessage {
    public var service: [ServiceResponse] = []
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(service: [ServiceResponse]) {
        self.service = service
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: service.append(try reader.decodeMessage(tag))
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeRepeatedMessages(1, service)
        writer.writeRaw(unknownFields)
    }
}

/// `grpc.reflection.v1.ServiceResponse`.
public struct ServiceResponse: ProtoMessage {
    /// Fully-qualified: `pkg.Service`.
    public var name: String = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(name: String) {
        self.name = name
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: name = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, name)
        writer.writeRaw(unknownFields)
    }
}

/// `grpc.reflection.v1.ErrorResponse`.
public struct ErrorResponse: ProtoMessage {
    /// A gRPC status code.
    public var errorCode: Int32 = 0
    public var errorMessage: String = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(errorCode: Int32, errorMessage: String) {
        self.errorCode = errorCode
        self.errorMessage = errorMessage
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: errorCode = try reader.decodeInt32(tag)
            case 2: errorMessage = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeInt32(1, errorCode)
        writer.writeString(2, errorMessage)
        writer.writeRaw(unknownFields)
    }
}

extension ProtoWriter {
    /// A string member of a oneof has explicit presence: it is written even when empty, so the receiver sees which
    /// member is set (`list_services: ""` is a valid request).
    mutating func writeOneofString(_ field: Int, _ value: String) {
        writeTag(field, .lengthDelimited)
        writeVarint(UInt64(value.utf8.count))
        writeRaw(value.utf8)
    }
}
