public import ProtobufWire

// Codecs for Protos/grpc/health/v1/health.proto.

/// `grpc.health.v1.HealthCheckRequest`.
public struct HealthCheckRequest: ProtoMessage {
    /// The service to check; `""` asks about the server as a whole.
    public var service: String = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(service: String) {
        self.service = service
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: service = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, service)
        writer.writeRaw(unknownFields)
    }
}

/// `grpc.health.v1.HealthCheckResponse`.
public struct HealthCheckResponse: ProtoMessage {
    /// `grpc.health.v1.HealthCheckResponse.ServingStatus`.
    public struct ServingStatus: ProtoEnum, CustomStringConvertible {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let unknown = Self(rawValue: 0)
        public static let serving = Self(rawValue: 1)
        public static let notServing = Self(rawValue: 2)
        /// Sent only by `Watch`, for a service the server has no status for.
        public static let serviceUnknown = Self(rawValue: 3)

        public var description: String {
            switch self {
            case .unknown: "UNKNOWN"
            case .serving: "SERVING"
            case .notServing: "NOT_SERVING"
            case .serviceUnknown: "SERVICE_UNKNOWN"
            default: "ServingStatus(\(rawValue))"
            }
        }
    }

    public var status: ServingStatus = .unknown
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(status: ServingStatus) {
        self.status = status
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: status = try reader.decodeEnum(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeEnum(1, status)
        writer.writeRaw(unknownFields)
    }
}
