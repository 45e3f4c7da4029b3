#if canImport(Glibc)
import Glibc
#endif

/// One-line structured logs on standard error: `2026-11-30T12:00:00.123Z INFO label message key=value ...`.
///
/// Callers pass only what may be logged: never keys, tokens or signed payloads.
public struct Logger: Sendable {
    public enum Level: Int, Sendable, Comparable {
        case debug, info, warning, error
        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
        var name: String { ["DEBUG", "INFO", "WARN", "ERROR"][rawValue] }
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

    private func log(_ level: Level, _ message: String, _ fields: KeyValuePairs<String, String>) {
        guard level >= minimumLevel else { return }
        var line = "\(Self.timestamp()) \(level.name) \(label) \(message)"
        for (key, value) in fields {
            let quoted = value.isEmpty || value.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" })
            line += quoted ? " \(key)=\"\(value.replacingQuotes())\"" : " \(key)=\(value)"
        }
        line += "\n"
        var bytes = Array(line.utf8)
        _ = bytes.withUnsafeMutableBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }

    private static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int = 2) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1))-\(pad(parts.tm_mday))T"
            + "\(pad(parts.tm_hour)):\(pad(parts.tm_min)):\(pad(parts.tm_sec)).\(pad(Int32(now.tv_nsec / 1_000_000), 3))Z"
    }
}

extension String {
    fileprivate func replacingQuotes() -> String {
        String(flatMap { $0 == "\"" ? ["\\", "\""] : [$0] })
    }
}
