/// A minute, an hour and a day in seconds, named once so that a span reads as what it is (`30 * Seconds.perDay`).
/// A day is 86,400 s, as in Unix time and at every store: no leap seconds. Inlinable, so that they fold into
/// constants in every module (the logger's calendar arithmetic runs for every line).
public enum Seconds {
    @inlinable public static var perMinute: Int64 { 60 }
    @inlinable public static var perHour: Int64 { 60 * perMinute }
    @inlinable public static var perDay: Int64 { 24 * perHour }
}

/// The same in milliseconds, the unit of stored times and of the stores' own (`30 * Milliseconds.perDay`).
public enum Milliseconds {
    @inlinable public static var perSecond: Int64 { 1000 }
    @inlinable public static var perMinute: Int64 { Seconds.perMinute * perSecond }
    @inlinable public static var perHour: Int64 { Seconds.perHour * perSecond }
    @inlinable public static var perDay: Int64 { Seconds.perDay * perSecond }
}
