#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CivilCalendar
import COpenSSL

/// Certificate times (`ASN1_TIME`) as Unix seconds, and those seconds as the ISO 8601 text of error messages, by
/// calendar arithmetic (``CivilCalendar``), so they depend neither on the process time zone nor on Foundation.
enum CertificateTime {
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
        return days * Seconds.perDay + Int64(parts.tm_hour) * Seconds.perHour + Int64(parts.tm_min) * Seconds.perMinute
            + Int64(parts.tm_sec)
    }

    /// `seconds` as `YYYY-MM-DDThh:mm:ssZ`.
    static func iso8601(_ seconds: Int64) -> String {
        CivilCalendar.iso8601(seconds: seconds)
    }
}
