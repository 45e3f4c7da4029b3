import Encodings
import RequestTracing
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// One-line structured logs on standard error: `2026-11-30T12:00:00.123Z INFO label message key=value ...`, or one
/// JSON object per line (``Format/json``). A line logged while a call runs carries its ``RequestID``.
///
/// Callers pass only what may be logged: never keys, tokens or signed payloads.
public struct Logger: Sendable {
    public enum Format: String, Sendable, CaseIterable {
        /// `TIME LEVEL label message key=value ...`, values quoted when they need it.
        case text
        /// `{"time":"...","level":"info","logger":"...","msg":"...","request_id":"...",key:value...}`: every value a
        /// string, field names as the text format's keys.
        case json
    }

    public enum Level: Int, Sendable, Comparable {
        case debug, info, warning, error
        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
        /// The JSON format's level.
        var jsonName: String {
            switch self {
            case .debug: "debug"
            case .info: "info"
            case .warning: "warn"
            case .error: "error"
            }
        }
        /// The text format's level.
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
    public let format: Format

    public init(label: String, minimumLevel: Level = .info, format: Format = .text) {
        self.label = label
        self.minimumLevel = minimumLevel
        self.format = format
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

    /// ``info(_:_:)`` with fields a value lists (``LogFieldList``) rather than an array of pairs: for a line logged
    /// on every call.
    public func info(_ message: @autoclosure () -> String, fields: some LogFieldList) {
        log(.info, message(), fields)
    }

    /// Builds the line in a stack buffer and hands it to the batched writer: this runs for every RPC. A line that
    /// may not fit the stack is built again in memory sized for its worst case.
    private func log(_ level: Level, _ message: String, _ fields: some LogFieldList) {
        guard level >= minimumLevel else { return }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let entry = LogLine.Entry(
            seconds: now.tv_sec, milliseconds: now.tv_nsec / 1_000_000, level: level, label: label, message: message,
            requestID: RequestID.current)
        let written = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: LogLine.stackCapacity) {
            write(entry, fields, into: $0)
        }
        guard !written else { return }
        let capacity = LogLine.capacity(
            format: format, label: label, message: message, requestID: entry.requestID, fields: fields)
        _ = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { write(entry, fields, into: $0) }
    }

    /// Writes the line out if it fits `buffer`.
    private func write(_ entry: LogLine.Entry, _ fields: some LogFieldList, into buffer: UnsafeMutableBufferPointer<UInt8>)
        -> Bool
    {
        var line = LogLine(buffer)
        let fits =
            switch format {
            case .text: line.appendText(entry, fields: fields)
            case .json: line.appendJSON(entry, fields: fields)
            }
        if fits { LogOutput.shared.append(line.bytes, flushNow: entry.level >= .warning) }
        return fits
    }
}

extension Logger.Format {
    /// The most bytes one byte of a string takes in a line: `\"` in text, `\u00XX` in JSON.
    var expansion: Int { self == .json ? JSONStringEscape.maximumExpansion : 2 }
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
            // The first line may come before the server masks SIGTERM and SIGINT for its signal sources
            // (`EntitlementServerApp.run()`); a thread started then must not take those signals, or their default
            // action ends the process.
            var signals = sigset_t()
            sigfillset(&signals)
            pthread_sigmask(SIG_BLOCK, &signals, nil)
            while true {
                var pause = timespec(tv_sec: 0, tv_nsec: Int(Self.interval.components.attoseconds / 1_000_000_000))
                nanosleep(&pause, nil)
                flush()
            }
        }
        thread.start()
    }

    func append(_ line: UnsafeBufferPointer<UInt8>, flushNow: Bool) {
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
