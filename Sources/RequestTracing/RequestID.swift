import CSystemShims

/// The ID that ties together every log line one call or request causes: the client's `x-request-id` when it is
/// safe to log, a new one otherwise; echoed in the response headers and bound to the task (``taskValue``) while the
/// call runs, or to the thread for a call that runs synchronously on one (``withThreadValue(_:_:)``), so lines
/// logged anywhere below it carry it (``current``).
public enum RequestID {
    public static let headerName = "x-request-id"

    /// The ID of the call this task (or, outside tasks, this thread) works for.
    @TaskLocal public static var taskValue: String?

    /// The ID of the call being served here: the task's, else the one bound to this thread; nil outside any call.
    public static var current: String? {
        if let taskValue { return taskValue }
        guard let bound = cshim_thread_binding() else { return nil }
        return bound.assumingMemoryBound(to: String.self).pointee
    }

    /// Runs `body`, which never suspends, with `id` bound to this thread: what a synchronous handler on an event
    /// loop runs in, for a fraction of binding ``taskValue`` (which, outside a task, allocates twice). A task
    /// `body` starts does not inherit it (a synchronous handler starts none); a ``taskValue`` bound inside `body`
    /// takes precedence.
    public static func withThreadValue<Result>(_ id: String, _ body: () throws -> Result) rethrows -> Result {
        try withUnsafePointer(to: id) { pointer in
            let outer = cshim_thread_binding()
            cshim_set_thread_binding(pointer)
            defer { cshim_set_thread_binding(outer) }
            return try body()
        }
    }

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
        hexDigits(cshim_thread_random64())
    }

    /// The low 60 bits of `value` as 15 lowercase hex digits, most significant first: eight digits at a time, by
    /// arithmetic on whole words rather than a branch per digit (this runs for nearly every call).
    static func hexDigits(_ value: UInt64) -> String {
        String(unsafeUninitializedCapacity: 15) { buffer in
            let high = hexWord(UInt32(truncatingIfNeeded: value >> 32) & 0x0FFF_FFFF)
            let low = hexWord(UInt32(truncatingIfNeeded: value))
            withUnsafeBytes(of: high) { buffer.baseAddress!.update(from: $0.baseAddress!.assumingMemoryBound(to: UInt8.self) + 1, count: 7) }
            withUnsafeBytes(of: low) { (buffer.baseAddress! + 7).update(from: $0.baseAddress!.assumingMemoryBound(to: UInt8.self), count: 8) }
            return 15
        }
    }

    /// Eight hex digits of `value`, the first in the lowest byte of the result's memory (little-endian).
    private static func hexWord(_ value: UInt32) -> UInt64 {
        // One nibble per byte, most significant nibble in the highest byte.
        var spread = UInt64(value)
        spread = (spread | spread << 16) & 0x0000_FFFF_0000_FFFF
        spread = (spread | spread << 8) & 0x00FF_00FF_00FF_00FF
        spread = (spread | spread << 4) & 0x0F0F_0F0F_0F0F_0F0F
        // 1 in each byte whose nibble is 10 or more: those get `a`-`f` (39 past where `0` + nibble would land).
        let letters = ((spread &+ 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101
        let ascii = spread &+ 0x3030_3030_3030_3030 &+ letters &* 39
        return ascii.byteSwapped.littleEndian
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
