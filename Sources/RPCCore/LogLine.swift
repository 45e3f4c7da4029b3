import CivilCalendar

/// Builds one log line in memory the caller provides (a stack buffer for ordinary lines): no allocation, no
/// per-byte capacity checks. The caller sizes the buffer with ``capacity(format:label:message:requestID:fields:)``.
struct LogLine {
    private let base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0

    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        base = buffer.baseAddress!
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
    /// escaped: at most 2 bytes in text (`\"`), 6 in JSON (`\u00XX`). Sized per format so that an ordinary text line
    /// fits the stack (`withUnsafeTemporaryAllocation` takes the heap past 1 KiB).
    static func capacity(
        format: Logger.Format, label: String, message: String, requestID: String?, fields: some LogFieldList
    ) -> Int {
        let expansion = format == .json ? 6 : 2
        var capacity = CivilCalendar.iso8601MaximumLength + 80 + expansion * (label.utf8.count + message.utf8.count)
        capacity += expansion * (requestID?.utf8.count ?? 0)
        fields.forEachField { key, value in capacity += expansion * (key.utf8.count + value.utf8.count) + 6 }
        return capacity
    }

    /// The text line: `TIMESTAMP LEVEL label message [request_id=ID] key=value ...` and a newline.
    mutating func appendText(_ entry: Entry, fields: some LogFieldList) {
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
        fields.forEachField { key, value in
            append(UInt8(ascii: " "))
            append(key)
            append(UInt8(ascii: "="))
            appendValue(value)
        }
        append(UInt8(ascii: "\n"))
    }

    /// The JSON line: `{"time":...,"level":...,"logger":...,"msg":...,"request_id":...,key:value...}` and a newline.
    mutating func appendJSON(_ entry: Entry, fields: some LogFieldList) {
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
        fields.forEachField { key, value in
            append(UInt8(ascii: ","))
            appendJSONString(key)
            append(UInt8(ascii: ":"))
            appendJSONString(value)
        }
        append("}\n")
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

    /// Whether a text value must be quoted: it is empty, or holds a byte ``isSpecial(_:)`` names. Eight bytes at a
    /// time, since every field of every RPC's line passes here (byte by byte it was the line's costliest part).
    static func needsQuotes(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return true }
        let raw = UnsafeRawPointer(base)
        var index = 0
        while index + 8 <= bytes.count {
            if hasSpecialByte(raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)) { return true }
            index += 8
        }
        guard index < bytes.count else { return false }
        // The last few bytes as one more word, padded with a byte that is never special.
        var tail = UInt64(0x6161_6161_6161_6161)
        withUnsafeMutableBytes(of: &tail) { $0.baseAddress!.copyMemory(from: raw + index, byteCount: bytes.count - index) }
        return hasSpecialByte(tail)
    }

    /// A space or control byte, `"`, `=` or DEL.
    static func isSpecial(_ byte: UInt8) -> Bool {
        byte <= 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "=") || byte == 0x7F
    }

    /// ``isSpecial(_:)`` for any of a word's eight bytes, by the bit tricks of "Bit Twiddling Hacks" (a byte below
    /// 0x21; a byte equal to one of the others as a zero byte after an XOR). Exact: no byte ≥ 0x80 sets a flag.
    private static func hasSpecialByte(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ value: UInt64) -> Bool { (value &- ones) & ~value & highBits != 0 }
        let hasByteBelow21 = (word &- ones &* 0x21) & ~word & highBits != 0
        return hasByteBelow21 || hasZeroByte(word ^ (ones &* 0x22)) || hasZeroByte(word ^ (ones &* 0x3D))
            || hasZeroByte(word ^ (ones &* 0x7F))
    }

    /// `2026-11-30T12:00:00.123Z` for `seconds` since 1970 (UTC) and `milliseconds` into that second, by
    /// ``CivilCalendar``'s arithmetic, which costs less than `gmtime_r` on every line.
    mutating func appendTimestamp(seconds: Int, milliseconds: Int) {
        count += CivilCalendar.writeISO8601(
            seconds: Int64(seconds), fraction: Int64(milliseconds), digits: 3, to: base + count)
    }
}
