/// A message of type `Message` already in wire format, written out as is: as a whole answer, or as an embedded
/// message field (`ProtoWriter.writeMessage`).
///
/// For answers assembled from encodings made earlier, such as a cached encoding of some fields followed by a fresh
/// one of the others. To this wrapper every field is unknown, and unknown fields are kept and written back verbatim.
public struct EncodedMessage<Message: ProtoMessage>: ProtoMessage {
    public var unknownFields: [UInt8]

    public init() {
        unknownFields = []
    }

    public init(_ encoding: [UInt8]) {
        unknownFields = encoding
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() { unknownFields += try reader.skipField(tag) }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeRaw(unknownFields)
    }

    public func serializedBytes() -> [UInt8] {
        unknownFields
    }
}
