import CivilCalendar

/// Google's two spellings of an instant: RFC 3339 strings (subscriptionsv2) and decimal milliseconds in a string
/// (products, voided purchases, notifications).
public enum GooglePlayTime {
    public static func milliseconds(rfc3339 text: String?) -> Int64? {
        text.flatMap { CivilCalendar.milliseconds(fromRFC3339: $0) }
    }

    public static func milliseconds(decimal text: String?) -> Int64? {
        guard let text, !text.isEmpty, text.utf8.count <= 19, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            return nil
        }
        return Int64(text)
    }
}
