public import ProtobufWire

/// Hand-written codecs for the messages of grpc's own interop service, `src/proto/grpc/testing/messages.proto`
/// and `empty.proto` in grpc/grpc (package `grpc.testing`), with its field numbers.
///
/// Every field of the messages ``GRPCTestService`` uses is decoded, even those the server only refuses
/// (compression) or ignores (the cloud-only `fill_*` flags), so tests can build any request grpc's clients send.
/// Fields added to grpc's protos since (such as `orca_per_query_report`) are kept as unknown fields.
/// The streaming calls' messages are in GRPCTestingStreamingMessages.swift.
public enum GRPCTesting {
    /// The proto package, for method paths.
    public static let package = "grpc.testing"
}

extension GRPCTesting {
    /// `grpc.testing.Empty`: no fields, the same wire format as `google.protobuf.Empty`.
    public typealias Empty = ProtoEmpty

    /// `grpc.testing.EchoStatus` (code 1, message 2): field for field our own `entitlementd.testing.EchoStatus`,
    /// so both services end calls with it the same way (``InteropEcho``).
    public typealias EchoStatus = Interop.EchoStatus

    /// `grpc.testing.BoolValue`: a bool that can be absent (grpc's protos avoid the well-known wrappers).
    public struct BoolValue: ProtoMessage {
        public var value = false
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(_ value: Bool) {
            self.value = value
        }

        public init(from reader: inout ProtoReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.number {
                case 1: value = try reader.decodeBool(tag)
                default: unknownFields += try reader.skipField(tag)
                }
            }
        }

        public func encode(to writer: inout ProtoWriter) {
            writer.writeBool(1, value)
            writer.writeRaw(unknownFields)
        }
    }

    /// `grpc.testing.PayloadType`: grpc declares only `COMPRESSABLE`.
    public struct PayloadType: ProtoEnum {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let compressable = Self(rawValue: 0)
    }

    /// `grpc.testing.Payload`: a body of bytes and its type.
    public struct Payload: ProtoMessage {
        public var type = PayloadType.compressable
        public var body: [UInt8] = []
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(type: PayloadType = .compressable, body: [UInt8]) {
            self.type = type
            self.body = body
        }

        public init(from reader: inout ProtoReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.number {
                case 1: type = try reader.decodeEnum(tag)
                case 2: body = try reader.decodeBytes(tag)
                default: unknownFields += try reader.skipField(tag)
                }
            }
        }

        public func encode(to writer: inout ProtoWriter) {
            writer.writeEnum(1, type)
            writer.writeBytes(2, body)
            writer.writeRaw(unknownFields)
        }
    }

    /// `grpc.testing.GrpclbRouteType`.
    public struct GrpclbRouteType: ProtoEnum {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let unknown = Self(rawValue: 0)
        public static let fallback = Self(rawValue: 1)
        public static let backend = Self(rawValue: 2)
    }

    /// `grpc.testing.SimpleRequest`: the request of UnaryCall (and CacheableUnaryCall).
    public struct SimpleRequest: ProtoMessage {
        public var responseType = PayloadType.compressable
        public var responseSize: Int32 = 0
        public var payload: Payload?
        public var fillUsername = false
        public var fillOauthScope = false
        public var responseCompressed: BoolValue?
        public var responseStatus: EchoStatus?
        public var expectCompressed: BoolValue?
        public var fillServerID = false
        public var fillGrpclbRouteType = false
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtoReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.number {
                case 1: responseType = try reader.decodeEnum(tag)
                case 2: responseSize = try reader.decodeInt32(tag)
                case 3: payload = try reader.decodeMessage(tag)
                case 4: fillUsername = try reader.decodeBool(tag)
                case 5: fillOauthScope = try reader.decodeBool(tag)
                case 6: responseCompressed = try reader.decodeMessage(tag)
                case 7: responseStatus = try reader.decodeMessage(tag)
                case 8: expectCompressed = try reader.decodeMessage(tag)
                case 9: fillServerID = try reader.decodeBool(tag)
                case 10: fillGrpclbRouteType = try reader.decodeBool(tag)
                default: unknownFields += try reader.skipField(tag)
                }
            }
        }

        public func encode(to writer: inout ProtoWriter) {
            writer.writeEnum(1, responseType)
            writer.writeInt32(2, responseSize)
            writer.writeMessage(3, payload)
            writer.writeBool(4, fillUsername)
            writer.writeBool(5, fillOauthScope)
            writer.writeMessage(6, responseCompressed)
            writer.writeMessage(7, responseStatus)
            writer.writeMessage(8, expectCompressed)
            writer.writeBool(9, fillServerID)
            writer.writeBool(10, fillGrpclbRouteType)
            writer.writeRaw(unknownFields)
        }
    }

    /// `grpc.testing.SimpleResponse`.
    public struct SimpleResponse: ProtoMessage {
        public var payload: Payload?
        public var username = ""
        public var oauthScope = ""
        public var serverID = ""
        public var grpclbRouteType = GrpclbRouteType.unknown
        public var hostname = ""
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(payload: Payload) {
            self.payload = payload
        }

        public init(from reader: inout ProtoReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.number {
                case 1: payload = try reader.decodeMessage(tag)
                case 2: username = try reader.decodeString(tag)
                case 3: oauthScope = try reader.decodeString(tag)
                case 4: serverID = try reader.decodeString(tag)
                case 5: grpclbRouteType = try reader.decodeEnum(tag)
                case 6: hostname = try reader.decodeString(tag)
                default: unknownFields += try reader.skipField(tag)
                }
            }
        }

        public func encode(to writer: inout ProtoWriter) {
            writer.writeMessage(1, payload)
            writer.writeString(2, username)
            writer.writeString(3, oauthScope)
            writer.writeString(4, serverID)
            writer.writeEnum(5, grpclbRouteType)
            writer.writeString(6, hostname)
            writer.writeRaw(unknownFields)
        }
    }
}
