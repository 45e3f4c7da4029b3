public import ProtobufWire

// The messages of grpc.testing.TestService's streaming calls (src/proto/grpc/testing/messages.proto in grpc/grpc).

extension GRPCTesting {
    /// `grpc.testing.StreamingInputCallRequest`: one message of StreamingInputCall.
    public struct StreamingInputCallRequest: ProtoMessage {
        public var payload: Payload?
        public var expectCompressed: BoolValue?
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
                case 2: expectCompressed = try reader.decodeMessage(tag)
                default: unknownFields += try reader.skipField(tag)
                }
            }
        }

        public func encode(to writer: inout ProtoWriter) {
            writer.writeMessage(1, payload)
            writer.writeMessage(2, expectCompressed)
            writer.writeRaw(unknownFields)
        }
    }

    /// `grpc.testing.StreamingInputCallResponse`.
    public struct StreamingInputCallResponse: ProtoMessage {
        public var aggregatedPayloadSize: Int32 = 0
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(aggregatedPayloadSize: Int32) {
            self.aggregatedPayloadSize = aggregatedPayloadSize
        }

        public init(from reader: inout ProtoReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.number {
                case 1: aggregatedPayloadSize = try reader.decodeInt32(tag)
                default: unknownFields += try reader.skipField(tag)
                }
            }
        }

        public func encode(to writer: inout ProtoWriter) {
            writer.writeInt32(1, aggregatedPayloadSize)
            writer.writeRaw(unknownFields)
        }
    }

    /// `grpc.testing.ResponseParameters`: one response a streaming call asks for.
    public struct ResponseParameters: ProtoMessage {
        public var size: Int32 = 0
        public var intervalUs: Int32 = 0
        public var compressed: BoolValue?
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
                case 3: compressed = try reader.decodeMessage(tag)
                default: unknownFields += try reader.skipField(tag)
                }
            }
        }

        public func encode(to writer: inout ProtoWriter) {
            writer.writeInt32(1, size)
            writer.writeInt32(2, intervalUs)
            writer.writeMessage(3, compressed)
            writer.writeRaw(unknownFields)
        }
    }

    /// `grpc.testing.StreamingOutputCallRequest`: the request of StreamingOutputCall, and each request of
    /// FullDuplexCall and HalfDuplexCall.
    public struct StreamingOutputCallRequest: ProtoMessage {
        public var responseType = PayloadType.compressable
        public var responseParameters: [ResponseParameters] = []
        public var payload: Payload?
        public var responseStatus: EchoStatus?
        public var unknownFields: [UInt8] = []

        public init() {}

        public init(responseParameters: [ResponseParameters], payload: Payload? = nil) {
            self.responseParameters = responseParameters
            self.payload = payload
        }

        public init(from reader: inout ProtoReader) throws {
            self.init()
            while let tag = try reader.nextTag() {
                switch tag.number {
                case 1: responseType = try reader.decodeEnum(tag)
                case 2: responseParameters.append(try reader.decodeMessage(tag))
                case 3: payload = try reader.decodeMessage(tag)
                case 7: responseStatus = try reader.decodeMessage(tag)
                default: unknownFields += try reader.skipField(tag)
                }
            }
        }

        public func encode(to writer: inout ProtoWriter) {
            writer.writeEnum(1, responseType)
            writer.writeRepeatedMessages(2, responseParameters)
            writer.writeMessage(3, payload)
            writer.writeMessage(7, responseStatus)
            writer.writeRaw(unknownFields)
        }
    }

    /// `grpc.testing.StreamingOutputCallResponse`.
    public struct StreamingOutputCallResponse: ProtoMessage {
        public var payload: Payload?
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
                default: unknownFields += try reader.skipField(tag)
                }
            }
        }

        public func encode(to writer: inout ProtoWriter) {
            writer.writeMessage(1, payload)
            writer.writeRaw(unknownFields)
        }
    }
}
