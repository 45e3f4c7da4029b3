/// A message with a hand-written codec.
///
/// A conforming type is a struct with one stored property per field plus ``unknownFields``.
/// Decoding follows one pattern:
///
/// ```swift
/// public init(from reader: inout ProtoReader) throws {
///     self.init()
///     while let tag = try reader.nextTag() {
///         switch tag.number {
///         case 1: name = try reader.decodeString(tag)
///         case 2: items.append(try reader.decodeMessage(tag))   // repeated message
///         case 3: try reader.decodeRepeatedUInt64(tag, into: &ids)  // packed or not
///         default: unknownFields += try reader.skipField(tag)
///         }
///     }
/// }
/// ```
///
/// and encoding writes fields in field-number order, then `writer.writeRaw(unknownFields)`.
/// A singular message field that appears twice keeps the last occurrence: proto3 asks for a merge, but merging
/// re-reads what came before at every repeat, which hostile input can make quadratic, and encoders never repeat one.
public protocol ProtoMessage: Sendable, Hashable {
    init()
    init(from reader: inout ProtoReader) throws
    func encode(to writer: inout ProtoWriter)
    /// Fields this build does not know, as raw bytes in arrival order. They are written back
    /// verbatim after the known fields, so a message passing through an older service keeps
    /// what a newer peer put in it.
    var unknownFields: [UInt8] { get set }
    /// The message in wire format. The default encodes it; a message that is its encoding already returns that.
    func serializedBytes() -> [UInt8]
}

extension ProtoMessage {
    @inlinable
    public init(serializedBytes: [UInt8]) throws {
        try self.init(serializedBytes: serializedBytes[...])
    }

    @inlinable
    public init(serializedBytes: ArraySlice<UInt8>) throws {
        var reader = ProtoReader(serializedBytes)
        try self.init(from: &reader)
    }

    /// Starts with room for a typical small message, so encoding one does not regrow the array.
    @inlinable
    public func serializedBytes() -> [UInt8] {
        var writer = ProtoWriter(reservingCapacity: 256)
        encode(to: &writer)
        return writer.bytes
    }
}
