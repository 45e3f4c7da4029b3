extension CivilCalendar {
    /// The day of a `YYYY-MM-DD` date (a year of four digits); nil for any other text or a day the calendar lacks.
    public static func days(fromDateText text: some StringProtocol) -> Int64? {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int64? {
            range.allSatisfy { bytes[$0] >= 0x30 && bytes[$0] <= 0x39 }
                ? range.reduce(0) { $0 * 10 + Int64(bytes[$1] - 0x30) } : nil
        }
        guard bytes.count == 10, bytes[4] == 0x2D, bytes[7] == 0x2D, let year = number(0..<4),
            let month = number(5..<7), let day = number(8..<10), (1...12).contains(month), day >= 1
        else { return nil }
        let days = days(fromYear: year, month: month, day: day)
        return date(fromDays: days) == (year, month, day) ? days : nil
    }

    /// `YYYY-MM-DD` of the day `days` after 1970-01-01.
    public static func dateText(days: Int64) -> String {
        let date = date(fromDays: days)
        func padded(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(date.year, 4))-\(padded(date.month, 2))-\(padded(date.day, 2))"
    }
}
