import Encodings

/// The fields of a log line, handed over on demand: the logger asks for them to write the line (and, for a line that
/// may not fit its stack buffer, to size it first), so a line logged on every call needs no array of pairs, no copy
/// of each string, and no string for a number.
public protocol LogFieldList {
    /// Adds each field to `fields`, in order, the same each time.
    func write(to fields: inout LogFields)
}

extension KeyValuePairs: LogFieldList where Key == String, Value == String {
    public func write(to fields: inout LogFields) {
        for (key, value) in self { fields.add(key, value) }
    }
}

/// Where a ``LogFieldList`` adds its fields: the line being written, or the tally of the most bytes they can take.
/// Direct calls, no closure per field: this runs for every RPC.
public struct LogFields {
    /// Nil while sizing: then only ``measured`` grows.
    private(set) var line: LogLine?
    private let format: Logger.Format
    /// The most bytes the fields added so far take in ``format`` (while sizing).
    private(set) var measured = 0
    /// False once a field may not have fit; nothing more is added then.
    private(set) var fits = true

    /// Writes the fields into `line`.
    init(writingInto line: LogLine, format: Logger.Format) {
        self.line = line
        self.format = format
    }

    /// Counts the most bytes the fields can take.
    init(measuring format: Logger.Format) {
        line = nil
        self.format = format
    }

    /// A field whose key is fixed in the code: a plain name, written as it is.
    public mutating func add(_ key: StaticString, _ value: String) {
        key.withUTF8Buffer { key in value.withUTF8Bytes { add(key, $0) } }
    }

    /// A field whose value is a number, written in decimal without making a string of it.
    public mutating func add(_ key: StaticString, _ value: UInt64) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var remaining = value
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(remaining % 10)
                remaining /= 10
            } while remaining > 0
            key.withUTF8Buffer { add($0, UnsafeBufferPointer(rebasing: digits[start...])) }
        }
    }

    public mutating func add(_ key: String, _ value: String) {
        key.withUTF8Bytes { key in value.withUTF8Bytes { add(key, $0) } }
    }

    @inline(__always)
    private mutating func add(_ key: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>) {
        guard fits else { return }
        if line == nil {
            measured += LogLine.fieldCapacity(expansion: format.expansion, key: key.count, value: value.count)
        } else {
            fits = line!.appendField(key, value, format: format)
        }
    }
}
