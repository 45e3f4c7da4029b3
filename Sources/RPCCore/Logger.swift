#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// One-line structured logs on standard error: `2026-11-30T12:00:00.123Z INFO label message key=value ...`.
///
/// Callers pass only what may be logged: never keys, tokens or signed payloads.
public struct Logger: Sendable {
    public enum Level: Int, Sendable, Comparable {
        case debug, info, warning, error
        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
        var name: String {
            switch self {
            case .debug: "DEBUG"
            case .info: "INFO"
            case .warning: "WARN"
            case .error: "ERROR"
            }
        }
    }

    public let label: String
    public let minimumLevel: Level

    public init(label: String, minimumLevel: Level = .info) {
        self.label = label
        self.minimumLevel = minimumLevel
    }

    public func debug(_ message: @autoclosure () -> String, _ fields: KeyValuePairs<String, String> = [:]) {
        log(.debug, message(), fields)
    }

    public func info(_ message: @autoclosure () -> String, _ fields: KeyValuePairs<String, String> = [:]) {
        log(.info, message(), fields)
    }

    public func warning(_ message: @autoclosure () -> String, _ fields: KeyValuePairs<String, String> = [:]) {
        log(.warning, message(), fields)
    }

    public func error(_ message: @autoclosure () -> String, _ fields: KeyValuePairs<String, String> = [:]) {
        log(.error, message(), fields)
    }

    /// Builds the line as bytes and writes it with one `write(2)`: this runs for every RPC.
    private func log(_ level: Level, _ message: String, _ fields: KeyValuePairs<String, String>) {
        guard level >= minimumLevel else { return }
        var line: [UInt8] = []
        line.reserveCapacity(256)
        Self.appendTimestamp(to: &line)
        line.append(UInt8(ascii: " "))
        line.append(contentsOf: level.name.utf8)
        line.append(UInt8(ascii: " "))
        line.append(contentsOf: label.utf8)
        line.append(UInt8(ascii: " "))
        line.append(contentsOf: message.utf8)
        for (key, value) in fields {
            line.append(UInt8(ascii: " "))
            line.append(contentsOf: key.utf8)
            line.append(UInt8(ascii: "="))
            Self.appendValue(value, to: &line)
        }
        line.append(UInt8(ascii: "\n"))
        LogOutput.shared.append(line, flushNow: level >= .warning)
    }

    /// A value as is, or quoted with `"` and `\` escaped when it is empty or holds a space, a quote, `=` or a
    /// control character (so a line always parses back, and a value can never forge a second line).
    private static func appendValue(_ value: String, to line: inout [UInt8]) {
        var value = value
        let plain = value.withUTF8 { bytes in
            !bytes.isEmpty
                && !bytes.contains { $0 <= 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "=") || $0 == 0x7F }
        }
        guard !plain else {
            value.withUTF8 { line.append(contentsOf: $0) }
            return
        }
        line.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                line.append(UInt8(ascii: "\\"))
                line.append(byte)
            case UInt8(ascii: "\n"): line.append(contentsOf: "\\n".utf8)
            case 0..<0x20, 0x7F: line.append(UInt8(ascii: "?"))
            default: line.append(byte)
            }
        }
        line.append(UInt8(ascii: "\""))
    }

    /// `2026-11-30T12:00:00.123Z`, from the wall clock.
    private static func appendTimestamp(to line: inout [UInt8]) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func digits(_ value: Int, _ width: Int) {
            var divisor = 1
            for _ in 1..<width { divisor *= 10 }
            var remaining = value
            while divisor > 0 {
                line.append(UInt8(ascii: "0") + UInt8(remaining / divisor % 10))
                remaining %= divisor
                divisor /= 10
            }
        }
        digits(Int(parts.tm_year) + 1900, 4)
        line.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mon) + 1, 2)
        line.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mday), 2)
        line.append(UInt8(ascii: "T"))
        digits(Int(parts.tm_hour), 2)
        line.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_min), 2)
        line.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_sec), 2)
        line.append(UInt8(ascii: "."))
        digits(Int(now.tv_nsec / 1_000_000), 3)
        line.append(UInt8(ascii: "Z"))
    }
}

/// Standard error, written in batches: one `write(2)` per line would cost more than the RPC it logs.
///
/// Lines wait at most ``interval`` (or until 64 KiB pile up); warnings and errors go out at once, taking everything
/// before them along, so the order of lines is kept.
final class LogOutput: Sendable {
    static let shared = LogOutput()

    static let interval = Duration.milliseconds(50)
    private static let highWater = 64 * 1024

    private let buffer = Mutex<[UInt8]>([])
    /// Serializes writes, so a flush from the timer and one from a warning never interleave their bytes.
    private let writing = Mutex<Void>(())

    private init() {
        // Whatever is still buffered goes out when the process exits normally.
        atexit { LogOutput.shared.flush() }
        let thread = Thread { [self] in
            while true {
                var pause = timespec(tv_sec: 0, tv_nsec: Int(Self.interval.components.attoseconds / 1_000_000_000))
                nanosleep(&pause, nil)
                flush()
            }
        }
        thread.start()
    }

    func append(_ line: [UInt8], flushNow: Bool) {
        let full = buffer.withLock { buffer -> Bool in
            buffer.append(contentsOf: line)
            return buffer.count >= Self.highWater
        }
        if full || flushNow { flush() }
    }

    func flush() {
        writing.withLock { _ in
            let pending = buffer.withLock { buffer -> [UInt8] in
                defer { buffer.removeAll(keepingCapacity: true) }
                return buffer
            }
            var offset = 0
            while offset < pending.count {
                let written = pending.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress! + offset, $0.count - offset) }
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }
}

/// A detached thread running one closure; the log flusher's home (it needs no event loop or task).
private final class Thread: @unchecked Sendable {
    private let body: () -> Void

    init(_ body: @escaping () -> Void) {
        self.body = body
    }

    func start() {
        var handle = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        pthread_create(&handle, nil, { context in
            Unmanaged<Thread>.fromOpaque(context!).takeRetainedValue().body()
            return nil
        }, context)
        pthread_detach(handle)
    }
}
