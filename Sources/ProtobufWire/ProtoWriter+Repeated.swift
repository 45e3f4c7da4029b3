/// Repeated fields. Every element is written, defaults included. Scalars are packed (one
/// length-delimited run), the proto3 default; an empty array writes nothing.
extension ProtoWriter {
    /// Encodes each element where it lies: iterating the array would copy every message first.
    @inlinable
    public mutating func writeRepeatedMessages<M: ProtoMessage>(_ field: Int, _ messages: [M]) {
        messages.withUnsafeBufferPointer { messages in
            for index in messages.indices {
                writeLengthDelimited(field) { messages[index].encode(to: &$0) }
            }
        }
    }

    public mutating func writeRepeatedStrings(_ field: Int, _ values: [String]) {
        for value in values {
            writeLengthDelimited(field, value.utf8)
        }
    }

    public mutating func writeRepeatedBytes(_ field: Int, _ values: [[UInt8]]) {
        for value in values {
            writeLengthDelimited(field, value)
        }
    }

    public mutating func writePackedInt32(_ field: Int, _ values: [Int32]) { writePacked(field, values, .int32) }
    public mutating func writePackedInt64(_ field: Int, _ values: [Int64]) { writePacked(field, values, .int64) }
    public mutating func writePackedUInt32(_ field: Int, _ values: [UInt32]) { writePacked(field, values, .uint32) }
    public mutating func writePackedUInt64(_ field: Int, _ values: [UInt64]) { writePacked(field, values, .uint64) }
    public mutating func writePackedSInt32(_ field: Int, _ values: [Int32]) { writePacked(field, values, .sint32) }
    public mutating func writePackedSInt64(_ field: Int, _ values: [Int64]) { writePacked(field, values, .sint64) }
    public mutating func writePackedBool(_ field: Int, _ values: [Bool]) { writePacked(field, values, .bool) }
    public mutating func writePackedFixed32(_ field: Int, _ values: [UInt32]) { writePacked(field, values, .fixed32) }
    public mutating func writePackedFixed64(_ field: Int, _ values: [UInt64]) { writePacked(field, values, .fixed64) }
    public mutating func writePackedSFixed32(_ field: Int, _ values: [Int32]) { writePacked(field, values, .sfixed32) }
    public mutating func writePackedSFixed64(_ field: Int, _ values: [Int64]) { writePacked(field, values, .sfixed64) }
    public mutating func writePackedFloat(_ field: Int, _ values: [Float]) { writePacked(field, values, .float) }
    public mutating func writePackedDouble(_ field: Int, _ values: [Double]) { writePacked(field, values, .double) }
    public mutating func writePackedEnum<E: ProtoEnum>(_ field: Int, _ values: [E]) {
        writePacked(field, values, .enumeration)
    }

    private mutating func writePacked<Value>(_ field: Int, _ values: [Value], _ encoding: ScalarEncoding<Value>) {
        guard !values.isEmpty else { return }
        writeLengthDelimited(field) { writer in
            for value in values {
                encoding.write(&writer, value)
            }
        }
    }
}
