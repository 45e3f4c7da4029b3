import CivilCalendar

/// Builds one log line in memory the caller provides (a stack buffer for ordinary lines): no allocation, no
/// per-byte capacity checks. The caller sizes the buffer with ``capacity(label:message:fields:)``.
struct LogLine {
    private let base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0

    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        base = buffer.baseAddress!
    }

    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    /// The most bytes a line can take: the timestamp, level and separators, and every value byte escaped.
    static func capacity(label: String, message: String, fields: KeyValuePairs<String, String>) -> Int {
        var capacity = CivilCalendar.iso8601MaximumLength + 24 + label.utf8.count + message.utf8.count
        for (key, value) in fields { capacity += key.utf8.count + 2 * value.utf8.count + 4 }
        return capacity
    }

    /// The whole line: `TIMESTAMP LEVEL label message key=value ...` and a newline.
    mutating func appendEntry(
        seconds: Int, milliseconds: Int, level: String, label: String, message: String,
        fields: KeyValuePairs<String, String>
    ) {
        appendTimestamp(seconds: seconds, milliseconds: milliseconds)
        append(UInt8(ascii: " "))
        append(level)
        append(UInt8(ascii: " "))
        append(label)
        append(UInt8(ascii: " "))
        append(message)
        for (key, value) in fields {
            append(UInt8(ascii: " "))
            append(key)
            append(UInt8(ascii: "="))
            appendValue(value)
        }
        append(UInt8(ascii: "\n"))
    }

    mutating func append(_ byte: UInt8) {
        base[count] = byte
        count += 1
    }

    mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            guard let source = bytes.baseAddress else { return }
            (base + count).update(from: source, count: bytes.count)
            count += bytes.count
        }
    }

    /// A value as is, or quoted with `"` and `\` escaped when it is empty or holds a space, a quote, `=` or a
    /// control character (so a line always parses back, and a value can never forge a second line).
    mutating func appendValue(_ value: String) {
        var value = value
        value.withUTF8 { bytes in
            let plain =
                !bytes.isEmpty
                && !bytes.contains { $0 <= 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "=") || $0 == 0x7F }
            guard !plain else {
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

    /// `2026-11-30T12:00:00.123Z` for `seconds` since 1970 (UTC) and `milliseconds` into that second, by
    /// ``CivilCalendar``'s arithmetic, which costs less than `gmtime_r` on every line.
    mutating func appendTimestamp(seconds: Int, milliseconds: Int) {
        count += CivilCalendar.writeISO8601(
            seconds: Int64(seconds), fraction: Int64(milliseconds), digits: 3, to: base + count)
    }
}
