#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CivilCalendar
import COpenSSL

/// Conversions between certificate times (`ASN1_TIME`), Unix seconds and the ISO 8601 text used in error messages,
/// done with calendar arithmetic so they do not depend on the process time zone or on Foundation.
enum UnixTime {
    /// Unix seconds for an `ASN1_TIME`, or nil when OpenSSL cannot read it.
    static func seconds(of time: UnsafePointer<ASN1_TIME>?) -> Int64? {
        guard let time else { return nil }
        var parts = tm()
        guard ASN1_TIME_to_tm(time, &parts) == 1 else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        let days = CivilCalendar.days(
            fromYear: Int64(parts.tm_year) + 1900, month: Int64(parts.tm_mon) + 1, day: Int64(parts.tm_mday))
        return days * 86_400 + Int64(parts.tm_hour) * 3_600 + Int64(parts.tm_min) * 60 + Int64(parts.tm_sec)
    }

    /// `seconds` as `YYYY-MM-DDThh:mm:ssZ`.
    static func iso8601(_ seconds: Int64) -> String {
        let (days, secondOfDay) = CivilCalendar.split(seconds: seconds)
        let (year, month, day) = CivilCalendar.date(fromDays: days)
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3_600, 2)):"
            + "\(pad(secondOfDay % 3_600 / 60, 2)):\(pad(secondOfDay % 60, 2))Z"
    }
}
