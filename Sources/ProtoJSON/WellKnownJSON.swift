import CivilCalendar
import ProtobufWire

/// `google.protobuf.Timestamp` and `Duration`, which the JSON mapping writes as strings: `"2026-12-01T10:00:00.5Z"`
/// (RFC 3339 in UTC, 0, 3, 6 or 9 fraction digits) and `"1.500s"`.
extension ProtoSchema {
    static let timestampName = "google.protobuf.Timestamp"
    static let durationName = "google.protobuf.Duration"
    /// ±10,000 years, the range the Duration type allows.
    static let maximumDurationSeconds: Int64 = 315_576_000_000

    /// The JSON string of a well-known message, nil for any other message.
    func wellKnownJSON(_ bytes: ArraySlice<UInt8>, _ type: MessageType, path: String) throws(ProtoJSONError) -> String? {
        guard type.fullName == Self.timestampName || type.fullName == Self.durationName else { return nil }
        var seconds: Int64 = 0
        var nanos: Int32 = 0
        do {
            var reader = ProtoReader(bytes)
            while let tag = try reader.nextTag() {
                switch tag.number {
                case 1: seconds = try reader.decodeInt64(tag)
                case 2: nanos = try reader.decodeInt32(tag)
                default: _ = try reader.skipField(tag)
                }
            }
        } catch {
            throw ProtoJSONError(.malformedBinary, at: path, "the \(type.fullName) does not parse: \(error)")
        }
        var text = ""
        if type.fullName == Self.timestampName {
            guard (ProtoTimestamp.minSeconds...ProtoTimestamp.maxSeconds).contains(seconds), (0..<1_000_000_000).contains(nanos)
            else {
                throw ProtoJSONError(.invalidValue, at: path, "the Timestamp lies outside 0001-01-01...9999-12-31")
            }
            let (fraction, digits) = Self.fraction(nanos)
            text = CivilCalendar.iso8601(seconds: seconds, fraction: fraction, digits: digits)
        } else {
            // Compared, not `abs`: the magnitude of Int64.min (or Int32.min) has no value to trap on.
            let limit = Self.maximumDurationSeconds
            guard (-limit...limit).contains(seconds), nanos > -1_000_000_000, nanos < 1_000_000_000,
                seconds == 0 || nanos == 0 || (seconds < 0) == (nanos < 0)
            else {
                throw ProtoJSONError(.invalidValue, at: path, "the Duration is out of range or mixes signs")
            }
            let negative = seconds < 0 || nanos < 0
            let (fraction, digits) = Self.fraction(abs(nanos))
            text = (negative ? "-" : "") + String(abs(seconds))
            if digits > 0 {
                let padded = String(fraction)
                text += "." + String(repeating: "0", count: digits - padded.count) + padded
            }
            text += "s"
        }
        return "\"" + text + "\""
    }

    /// Nanoseconds as the fewest of 0, 3, 6 or 9 digits that hold them exactly.
    private static func fraction(_ nanos: Int32) -> (value: Int64, digits: Int) {
        let value = Int64(nanos)
        if value == 0 { return (0, 0) }
        if value % 1_000_000 == 0 { return (value / 1_000_000, 3) }
        if value % 1_000 == 0 { return (value / 1_000, 6) }
        return (value, 9)
    }

    /// A Timestamp's (seconds, nanos) from its JSON string; nil when it is not one.
    static func timestamp(fromJSON text: String) -> (seconds: Int64, nanos: Int32)? {
        guard let split = splitFraction(text, before: { $0 == "Z" || $0 == "z" || $0 == "+" || $0 == "-" }),
            let milliseconds = CivilCalendar.milliseconds(fromRFC3339: split.whole)
        else { return nil }
        let seconds = milliseconds / 1000
        guard (ProtoTimestamp.minSeconds...ProtoTimestamp.maxSeconds).contains(seconds) else { return nil }
        return (seconds, split.nanos)
    }

    /// A Duration's (seconds, nanos) from its JSON string (`"-1.5s"`); nil when it is not one.
    static func duration(fromJSON text: String) -> (seconds: Int64, nanos: Int32)? {
        guard text.hasSuffix("s") else { return nil }
        var body = Substring(text.dropLast())
        let negative = body.hasPrefix("-")
        if negative { body = body.dropFirst() }
        let parts = body.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let wholeText = parts.first, !wholeText.isEmpty, wholeText.utf8.count <= 12,
            wholeText.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let whole = Int64(wholeText),
            whole <= maximumDurationSeconds
        else { return nil }
        var fraction: Int32 = 0
        if parts.count == 2 {
            guard let parsed = nanos(fromDigits: parts[1]) else { return nil }
            fraction = parsed
        }
        return negative ? (-whole, -fraction) : (whole, fraction)
    }

    /// 1 to 9 digits as nanoseconds (`5` → 500,000,000).
    private static func nanos(fromDigits digits: Substring) -> Int32? {
        guard (1...9).contains(digits.utf8.count), digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            return nil
        }
        var value: Int32 = 0
        for byte in digits.utf8 { value = value * 10 + Int32(byte - 0x30) }
        for _ in digits.utf8.count..<9 { value *= 10 }
        return value
    }

    /// `text` without its fraction of a second, and that fraction in nanoseconds (0 without one); the fraction ends
    /// where `before` first holds after the seconds.
    private static func splitFraction(_ text: String, before isEnd: (Character) -> Bool)
        -> (whole: String, nanos: Int32)?
    {
        guard let dot = text.firstIndex(of: "."), text.distance(from: text.startIndex, to: dot) == 19 else {
            return (text, 0)
        }
        let afterDot = text.index(after: dot)
        guard let end = text[afterDot...].firstIndex(where: isEnd), let nanos = nanos(fromDigits: text[afterDot..<end])
        else { return nil }
        return (String(text[..<dot]) + String(text[end...]), nanos)
    }
}
