import COpenSSL

/// OpenSSL's per-thread error queue.
///
/// Every failure path here drains it: a stale entry left on a thread would be read by the next unrelated OpenSSL
/// call there (TLS's `SSL_get_error` in particular) as its own failure.
enum OpenSSLErrorQueue {
    /// The queued error strings joined with "; " (or `fallback` when the queue is empty), leaving the queue empty.
    static func drain(fallback: String = "no OpenSSL error detail") -> String {
        var messages: [String] = []
        var buffer = [CChar](repeating: 0, count: 256)
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return messages.isEmpty ? fallback : messages.joined(separator: "; ")
    }

    /// Empties the queue without reading it, for failures whose meaning is already known (a bad signature).
    static func clear() { ERR_clear_error() }
}
