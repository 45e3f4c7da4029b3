public import ProtobufWire

/// Hand-written codecs for `Tests/Interop/protos/interop.proto` (package `entitlementd.testing`).
///
/// Only the interop suite uses these; they follow the ProtobufWire conventions (field-number order on encode,
/// unknown fields kept and re-emitted, singular message fields optional).
public enum Interop {
    /// The proto package, for method paths.
    public static let package = "entitlementd.testing"
}

extension Interop {
    /// `entitlementd.testing.Empty`.
    public struct Empty: ProtoMessage {
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtoReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                unknownFields += try reader.skipField(tag)
            }
        }

        public func encode(to writer: inout ProtoWriter) {
            writer.writeRaw(unknownFields)
        }
    }

    /// `entitlementd.testing.EchoStatus`: the status a call must end with.
    public struct EchoStatus: ProtoMessage {
        public var code: Int32 = 0
        public var message = ""
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(code: Int32, message: String) {
            self.code = code
            self.message = message
        }

        public init(from reader: inout ProtoReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.number {
                case 1: code = try reader.decodeInt32(tag)
                case 2: message = try reader.decodeString(tag)
                default: unknownFields += try reader.skipField(tag)
                }
            }
        }

        public func encode(to writer: inout ProtoWriter) {
            writer.writeInt32(1, code)
            writer.writeString(2, message)
            writer.writeRaw(unknownFields)
        }
    }

    /// `entitlementd.testing.SimpleRequest`.
    public struct SimpleRequest: ProtoMessage {
        public var responseSize: Int32 = 0
        public var payload: [UInt8] = []
        public var responseStatus: EchoStatus?
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtoReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.number {
                case 1: responseSize = try reader.decodeInt32(tag)
                case 2: payload = try reader.decodeBytes(tag)
                case 3: responseStatus = try reader.decodeMessage(tag)
                default: unknownFields += try reader.skipField(tag)
                }
            }
        }

        public func encode(to writer: inout ProtoWriter) {
            writer.writeInt32(1, responseSize)
            writer.writeBytes(2, payload)
            writer.writeMessage(3, responseStatus)
            writer.writeRaw(unknownFields)
        }
    }

    /// `entitlementd.testing.SimpleResponse`.
    public struct SimpleResponse: ProtoMessage {
        public var payload: [UInt8] = []
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(payload: [UInt8]) {
            self.payload = payload
        }

        public init(from reader: inout ProtoReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.number {
                case 1: payload = try reader.decodeBytes(tag)
                default: unknownFields += try reader.skipField(tag)
                }
            }
        }

        public func encode(to writer: inout ProtoWriter) {
            writer.writeBytes(1, payload)
            writer.writeRaw(unknownFields)
        }
    }

    /// `entitlementd.testing.ResponseParameters`: one response of a streaming call.
    public struct ResponseParameters: ProtoMessage {
        public var size: Int32 = 0
        public var intervalUs: Int32 = 0
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(size: Int32, intervalUs: Int32 = 0) {
            self.size = size
            self.intervalUs = intervalUs
        }

        public init(from reader: inout ProtoReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.number {
                case 1: size = try reader.decodeInt32(tag)
                case 2: intervalUs = try reader.decodeInt32(tag)
                default: unknownFields += try reader.skipField(tag)
                }
            }
        }

        public func encode(to writer: inout ProtoWriter) {
            writer.writeInt32(1, size)
            writer.writeInt32(2, intervalUs)
            writer.writeRaw(unknownFields)
        }
    }

    /// `entitlementd.testing.StreamingOutputCallRequest`.
    public struct StreamingOutputCallRequest: ProtoMessage {
        public var responseParameters: [ResponseParameters] = []
        public var payload: [UInt8] = []
        public var responseStatus: EchoStatus?
        public var cancellationToken = ""
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtoReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.number {
                case 1: responseParameters.append(try reader.decodeMessage(tag))
                case 2: payload = try reader.decodeBytes(tag)
                case 3: responseStatus = try reader.decodeMessage(tag)
                case 4: cancellationToken = try reader.decodeString(tag)
                default: unknownFields += try reader.skipField(tag)
                }
            }
        }

        public func encode(to writer: inout ProtoWriter) {
            writer.writeRepeatedMessages(1, responseParameters)
            writer.writeBytes(2, payload)
            writer.writeMessage(3, responseStatus)
            writer.writeString(4, cancellationToken)
            writer.writeRaw(unknownFields)
        }
    }

    /// `entitlementd.testing.StreamingOutputCallResponse`.
    public struct StreamingOutputCallResponse: ProtoMessage {
        public var payload: [UInt8] = []
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(payload: [UInt8]) {
            self.payload = payload
        }

        public init(from reader: inout ProtoReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.number {
                case 1: payload = try reader.decodeBytes(tag)
                default: unknownFields += try reader.skipField(tag)
                }
            }
        }

        public func encode(to writer: inout ProtoWriter) {
            writer.writeBytes(1, payload)
            writer.writeRaw(unknownFields)
        }
    }

    /// `entitlementd.testing.StreamingInputCallRequest`.
    public struct StreamingInputCallRequest: ProtoMessage {
        public var payload: [UInt8] = []
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtoReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.number {
                case 1: payload = try reader.decodeBytes(tag)
                default: unknownFields += try reader.skipField(tag)
                }
            }
        }

        public func encode(to writer: inout ProtoWriter) {
            writer.writeBytes(1, payload)
            writer.writeRaw(unknownFields)
        }
    }

    /// `entitlementd.testing.StreamingInputCallResponse`: the same message as grpc's, field for field.
    public typealias StreamingInputCallResponse = GRPCTesting.StreamingInputCallResponse

    /// `entitlementd.testing.SleepRequest`.
    public struct SleepRequest: ProtoMessage {
        public var milliseconds: Int32 = 0
        public var cancellationToken = ""
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtoReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.number {
                case 1: milliseconds = try reader.decodeInt32(tag)
                case 2: cancellationToken = try reader.decodeString(tag)
                default: unknownFields += try reader.skipField(tag)
                }
            }
        }

        public func encode(to writer: inout ProtoWriter) {
            writer.writeInt32(1, milliseconds)
            writer.writeString(2, cancellationToken)
            writer.writeRaw(unknownFields)
        }
    }

    /// `entitlementd.testing.CancellationQuery`.
    public struct CancellationQuery: ProtoMessage {
        public var token = ""
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(from reader: inout ProtoReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.number {
                case 1: token = try reader.decodeString(tag)
                default: unknownFields += try reader.skipField(tag)
                }
            }
        }

        public func encode(to writer: inout ProtoWriter) {
            writer.writeString(1, token)
            writer.writeRaw(unknownFields)
        }
    }

    /// `entitlementd.testing.CancellationReport`.
    public struct CancellationReport: ProtoMessage {
        public var cancelled = false
        public var finished = false
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(cancelled: Bool, finished: Bool) {
            self.cancelled = cancelled
            self.finished = finished
        }

        public init(from reader: inout ProtoReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.number {
                case 1: cancelled = try reader.decodeBool(tag)
                case 2: finished = try reader.decodeBool(tag)
                default: unknownFields += try reader.skipField(tag)
                }
            }
        }

        public func encode(to writer: inout ProtoWriter) {
            writer.writeBool(1, cancelled)
            writer.writeBool(2, finished)
            writer.writeRaw(unknownFields)
        }
    }
}
