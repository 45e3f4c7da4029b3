import CivilCalendar

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
        let expansion = format.expansion
        var capacity = startCapacity(expansion: expansion, label: label, message: message, requestID: requestID)
        fields.forEachField { key, value in capacity += fieldCapacity(expansion: expansion, key: key, value: value) }
        return capacity
    }

    /// The most bytes of everything but the fields, the line's end included.
    private static func startCapacity(expansion: Int, label: String, message: String, requestID: String?) -> Int {
        CivilCalendar.iso8601MaximumLength + 80
            + expansion * (label.utf8.count + message.utf8.count + (requestID?.utf8.count ?? 0))
    }

    private static func fieldCapacity(expansion: Int, key: String, value: String) -> Int {
        expansion * (key.utf8.count + value.utf8.count) + 6
    }

    private func hasRoom(_ bytes: Int) -> Bool { count + bytes <= capacity }

    /// Room for the line's start in `format`.
    private func hasRoom(for entry: Entry, expansion: Int) -> Bool {
        hasRoom(Self.startCapacity(expansion: expansion, label: entry.label, message: entry.message, requestID: entry.requestID))
    }

    /// Appends each field that is sure to fit: false as soon as one may not (the line is then incomplete).
    private mutating func appendFields(
        _ fields: some LogFieldList, expansion: Int, _ appendField: (inout LogLine, String, String) -> Void
    ) -> Bool {
        var fits = true
        fields.forEachField { key, value in
            guard fits, hasRoom(Self.fieldCapacity(expansion: expansion, key: key, value: value)) else {
                fits = false
                return
            }
            appendField(&self, key, value)
        }
        return fits
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
        let fits = appendFields(fields, expansion: Logger.Format.text.expansion) { line, key, value in
            line.append(UInt8(ascii: " "))
            line.append(key)
            line.append(UInt8(ascii: "="))
            line.appendValue(value)
        }
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
        let fits = appendFields(fields, expansion: Logger.Format.json.expansion) { line, key, value in
            line.append(UInt8(ascii: ","))
            line.appendJSONString(key)
            line.append(UInt8(ascii: ":"))
            line.appendJSONString(value)
        }
        append("}\n")
        return fits
    }

    /// A JSON string: `"` and `\\` escaped, control characters as `\n` or `\u00XX`; other bytes as they are (the
    /// input is a Swift string, so valid UTF-8).
    mutating func appendJSONString(_ value: String) {
        append(UInt8(ascii: "\""))
        Self.withUTF8(of: value) { bytes in
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                    append(UInt8(ascii: "\\"))
                    append(byte)
                case UInt8(ascii: "\n"):
                    append("\\n")
                case 0..<0x20, 0x7F:
                    append("\\u00")
                    append(Self.hexDigits[Int(byte >> 4)])
                    append(Self.hexDigits[Int(byte & 0xF)])
                default:
                    append(byte)
                }
            }
        }
        append(UInt8(ascii: "\""))
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    mutating func append(_ byte: UInt8) {
        base[count] = byte
        count += 1
    }

    mutating func append(_ text: String) {
        Self.withUTF8(of: text) { bytes in
            guard let source = bytes.baseAddress else { return }
            (base + count).update(from: source, count: bytes.count)
            count += bytes.count
        }
    }

    /// `text`'s UTF-8 without the copy `String.withUTF8` needs (it is mutating): a copy of each of a line's dozen
    /// strings cost a retain and a release.
    private static func withUTF8(of text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        if text.utf8.withContiguousStorageIfAvailable(body) == nil {
            var copy = text
            copy.withUTF8(body)
        }
    }

    /// A value as is, or quoted with `"` and `\` escaped when it is empty or holds a space, a quote, `=` or a
    /// control character (so a line always parses back, and a value can never forge a second line).
    mutating func appendValue(_ value: String) {
        Self.withUTF8(of: value) { bytes in
            guard Self.needsQuotes(bytes) else {
                (base + count).update(from: bytes.baseAddress!, count: bytes.count)
                count += bytes.count
                return
            }
            append(UInt8(ascii: "\""))
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                    append(UInt8(ascii: "\\"))
                    append(byte)
                case UInt8(ascii: "\n"):
                    append(UInt8(ascii: "\\"))
                    append(UInt8(ascii: "n"))
                case 0..<0x20, 0x7F: append(UInt8(ascii: "?"))
                default: append(byte)
                }
            }
            append(UInt8(ascii: "\""))
        }
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

    /// `2026-11-30T12:00:00.123Z` for `seconds` since 1970 (UTC) and `milliseconds` into that second, by
    /// ``CivilCalendar``'s arithmetic, which costs less than `gmtime_r` on every line.
    mutating func appendTimestamp(seconds: Int, milliseconds: Int) {
        count += CivilCalendar.writeISO8601(
            seconds: Int64(seconds), fraction: Int64(milliseconds), digits: 3, to: base + count)
    }
}
