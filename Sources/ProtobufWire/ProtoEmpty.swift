/// `google.protobuf.Empty`: the request or response of calls that carry no data. It still
/// keeps unknown fields, like every message here.
public struct ProtoEmpty: ProtoMessage {
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
