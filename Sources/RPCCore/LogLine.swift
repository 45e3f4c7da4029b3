import CivilCalendar
import CSystemShims
import Encodings

/// Builds one log line in memory the caller provides (a stack buffer for ordinary lines): no allocation, no
/// per-byte capacity checks. Room is checked once for the line's start and once per field, for the worst case of
/// each; a line that may not fit is reported, and the caller writes it again in memory sized by
/// ``capacity(format:label:message:requestID:fields:)``.
struct LogLine {
    /// What an ordinary line is written in: `withUnsafeTemporaryAllocation` takes the heap past 1 KiB.
    static let stackCapacity = 1024

    private let base: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    private(set) var count = 0

    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        base = buffer.baseAddress!
        capacity = buffer.count
    }

    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    /// What every line has besides its fields.
    struct Entry {
        var seconds: Int
        var milliseconds: Int
        var level: Logger.Level
        var label: String
        var message: String
        var requestID: String?
    }

    /// The most bytes a line can take in `format`: the timestamp, level, names and separators, and every string byte
    /// escaped: at most 2 bytes in text (`\"`), 6 in JSON (`\u00XX`).
    static func capacity(
        format: Logger.Format, label: String, message: String, requestID: String?, fields: some LogFieldList
    ) -> Int {
        var sizing = LogFields(measuring: format)
        fields.write(to: &sizing)
        return startCapacity(expansion: format.expansion, label: label, message: message, requestID: requestID)
            + sizing.measured
    }

    /// The most bytes of everything but the fields, the line's end included.
    private static func startCapacity(expansion: Int, label: String, message: String, requestID: String?) -> Int {
        CivilCalendar.iso8601MaximumLength + 80
            + expansion * (label.utf8.count + message.utf8.count + (requestID?.utf8.count ?? 0))
    }

    /// The most bytes one field takes: separators and escaping included.
    static func fieldCapacity(expansion: Int, key: Int, value: Int) -> Int {
        expansion * (key + value) + 6
    }

    private func hasRoom(_ bytes: Int) -> Bool { count + bytes <= capacity }

    /// Room for the line's start in `format`.
    private func hasRoom(for entry: Entry, expansion: Int) -> Bool {
        hasRoom(Self.startCapacity(expansion: expansion, label: entry.label, message: entry.message, requestID: entry.requestID))
    }

    /// Appends the fields that are sure to fit: false as soon as one may not (the line is then incomplete).
    private mutating func appendFields(_ fields: some LogFieldList, format: Logger.Format) -> Bool {
        var writer = LogFields(writingInto: self, format: format)
        fields.write(to: &writer)
        self = writer.line!
        return writer.fits
    }

    /// One field, ` key=value` in text, `,"key":"value"` in JSON, if it is sure to fit: false, appending nothing,
    /// when it may not.
    @inline(__always)
    mutating func appendField(
        _ key: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>, format: Logger.Format
    ) -> Bool {
        guard hasRoom(Self.fieldCapacity(expansion: format.expansion, key: key.count, value: value.count)) else {
            return false
        }
        switch format {
        case .text:
            append(UInt8(ascii: " "))
            append(key)
            append(UInt8(ascii: "="))
            appendValue(value)
        case .json:
            append(UInt8(ascii: ","))
            appendJSONString(key)
            append(UInt8(ascii: ":"))
            appendJSONString(value)
        }
        return true
    }

    /// The text line: `TIMESTAMP LEVEL label message [request_id=ID] key=value ...` and a newline. False, with the
    /// line incomplete, when it may not fit.
    mutating func appendText(_ entry: Entry, fields: some LogFieldList) -> Bool {
        guard hasRoom(for: entry, expansion: Logger.Format.text.expansion) else { return false }
        appendTimestamp(seconds: entry.seconds, milliseconds: entry.milliseconds)
        append(UInt8(ascii: " "))
        append(entry.level.name)
        append(UInt8(ascii: " "))
        append(entry.label)
        append(UInt8(ascii: " "))
        append(entry.message)
        if let requestID = entry.requestID {
            append(" request_id=")
            appendValue(requestID)
        }
        let fits = appendFields(fields, format: .text)
        append(UInt8(ascii: "\n"))
        return fits
    }

    /// The JSON line: `{"time":...,"level":...,"logger":...,"msg":...,"request_id":...,key:value...}` and a newline.
    /// False, with the line incomplete, when it may not fit.
    mutating func appendJSON(_ entry: Entry, fields: some LogFieldList) -> Bool {
        guard hasRoom(for: entry, expansion: Logger.Format.json.expansion) else { return false }
        append("{\"time\":\"")
        appendTimestamp(seconds: entry.seconds, milliseconds: entry.milliseconds)
        append("\",\"level\":\"")
        append(entry.level.jsonName)
        append("\",\"logger\":")
        appendJSONString(entry.label)
        append(",\"msg\":")
        appendJSONString(entry.message)
        if let requestID = entry.requestID {
            append(",\"request_id\":")
            appendJSONString(requestID)
        }
        let fits = appendFields(fields, format: .json)
        append("}\n")
        return fits
    }

    /// A JSON string: `"` and `\\` escaped, control characters as `\n` or `\u00XX`; other bytes as they are (the
    /// input is a Swift string, so valid UTF-8).
    mutating func appendJSONString(_ value: String) {
        value.withUTF8Bytes { appendJSONString($0) }
    }

    private mutating func appendJSONString(_ bytes: UnsafeBufferPointer<UInt8>) {
        appendQuoted(bytes, json: true)
    }

    /// `bytes` in double quotes: in JSON as ``JSONStringEscape`` writes them; in text `"` and `\` escaped, a newline as
    /// `\n`, other control characters as `?`.
    private mutating func appendQuoted(_ bytes: UnsafeBufferPointer<UInt8>, json: Bool) {
        append(UInt8(ascii: "\""))
        for byte in bytes {
            if json {
                JSONStringEscape.write(byte) { append($0) }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "\n"):
                append(UInt8(ascii: "\\"))
                append(byte == UInt8(ascii: "\n") ? UInt8(ascii: "n") : byte)
            case 0..<0x20, 0x7F: append(UInt8(ascii: "?"))
            default: append(byte)
            }
        }
        append(UInt8(ascii: "\""))
    }

    mutating func append(_ byte: UInt8) {
        base[count] = byte
        count += 1
    }

    mutating func append(_ text: String) {
        text.withUTF8Bytes { append($0) }
    }

    @inline(__always)
    private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    /// A value as is, or quoted with `"` and `\` escaped when it is empty or holds a space, a quote, `=` or a
    /// control character (so a line always parses back, and a value can never forge a second line).
    mutating func appendValue(_ value: String) {
        value.withUTF8Bytes { appendValue($0) }
    }

    @inline(__always)
    private mutating func appendValue(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard Self.needsQuotes(bytes) else { return append(bytes) }
        appendQuoted(bytes, json: false)
    }

    /// Whether a text value must be quoted: it is empty, or holds a byte ``isSpecial(_:)`` names. Every field of
    /// every RPC's line passes here: a table and no branch per byte cost half of checking eight bytes at a time.
    static func needsQuotes(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !bytes.isEmpty else { return true }
        let special = specialBytes
        var found: UInt8 = 0
        for byte in bytes { found |= special[Int(byte)] }
        return found != 0
    }

    /// A space or control byte, `"`, `=` or DEL.
    static func isSpecial(_ byte: UInt8) -> Bool {
        byte <= 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "=") || byte == 0x7F
    }

    /// 1 for each byte value ``isSpecial(_:)`` names, else 0. Made once, never changed or freed: safe to share.
    nonisolated(unsafe) private static let specialBytes: UnsafePointer<UInt8> = {
        let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
        for byte in UInt8.min...UInt8.max { table[Int(byte)] = isSpecial(byte) ? 1 : 0 }
        return UnsafePointer(table)
    }()

    /// `2026-11-30T12:00:00.123Z` for `seconds` since 1970 (UTC) and `milliseconds` into that second. The text up to
    /// the seconds comes from ``CivilCalendar``'s arithmetic (cheaper than `gmtime_r`) once per second and thread;
    /// the thread's other lines of that second copy it.
    mutating func appendTimestamp(seconds: Int, milliseconds: Int) {
        let cached = cshim_thread_second_text()!
        if cached.pointee.length == 0 || cached.pointee.second != seconds {
            let length = withUnsafeMutableBytes(of: &cached.pointee.text) { text in
                // Without its closing `Z`.
                CivilCalendar.writeISO8601(seconds: Int64(seconds), to: text.baseAddress!.assumingMemoryBound(to: UInt8.self)) - 1
            }
            cached.pointee.second = Int64(seconds)
            cached.pointee.length = Int64(length)
        }
        withUnsafeBytes(of: &cached.pointee.text) { text in
            append(UnsafeBufferPointer(rebasing: text.assumingMemoryBound(to: UInt8.self)[..<Int(cached.pointee.length)]))
        }
        append(UInt8(ascii: "."))
        append(UInt8(ascii: "0") + UInt8(milliseconds / 100))
        append(UInt8(ascii: "0") + UInt8(milliseconds / 10 % 10))
        append(UInt8(ascii: "0") + UInt8(milliseconds % 10))
        append(UInt8(ascii: "Z"))
    }
}
