import CSystemShims

/// The ID that ties together every log line one call or request causes: the client's `x-request-id` when it is
/// safe to log, a new one otherwise; echoed in the response headers and bound to the task (``current``) while the
/// call runs, so lines logged anywhere below it carry it.
public enum RequestID {
    public static let headerName = "x-request-id"

    /// The ID of the call this task (or, outside tasks, this thread) works for; nil outside any call.
    @TaskLocal public static var current: String?

    /// The most bytes of a client's ID that are kept; longer ones are replaced.
    public static let maxLength = 64

    /// `given` when it is 1 to 64 of `A-Z a-z 0-9 . _ : -` (nothing that could forge a log field), else a new ID.
    public static func accept(_ given: String?) -> String {
        if let given, (1...maxLength).contains(given.utf8.count), given.utf8.allSatisfy(isAllowed) { return given }
        return generate()
    }

    /// 15 lowercase hex digits (60 random bits): short enough to be a small string, so making one allocates nothing.
    /// The bits come from a per-thread generator: one made for every call must not cost a system call
    /// (`getrandom(2)`, which `UInt64.random` makes each time).
    public static func generate() -> String {
        var value = cshim_thread_random64() >> 4
        return String(unsafeUninitializedCapacity: 15) { buffer in
            for index in stride(from: 14, through: 0, by: -1) {
                let digit = UInt8(truncatingIfNeeded: value & 0xF)
                buffer[index] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
                value >>= 4
            }
            return 15
        }
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: ":"),
            UInt8(ascii: "-"):
            true
        default: false
        }
    }
}
