import Foundation
@testable import RequestTracing
@testable import RPCCore
import Synchronization
import Testing

@Suite struct LoggerTests {
    @Test func levelsAreOrdered() {
        #expect(Logger.Level.debug < .info)
        #expect(Logger.Level.info < .warning)
        #expect(Logger.Level.warning < .error)
        #expect(!(Logger.Level.error < .error))
        let logger = Logger(label: "x")
        #expect(logger.minimumLevel == .info, "default")
        #expect(logger.label == "x")
    }

    /// Runs in a child process so standard error can be captured.
    @Test func writesOneStructuredLinePerMessageAtOrAboveTheMinimumLevel() async throws {
        let result = try #require(
            await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
                let logger = Logger(label: "unit-label", minimumLevel: .info)
                logger.debug("hidden debug")
                logger.info("hello world", ["user": "alice", "note": "two words", "quote": "say \"hi\"", "empty": "", "eq": "a=b"])
                logger.warning("careful")
                logger.error("broken", ["code": "13"])
            }
        )
        let lines = String(decoding: result.standardErrorContent, as: UTF8.self)
            .split(separator: "\n").filter { $0.contains(" unit-label ") }
        try #require(lines.count == 3)
        let timestamp = try Regex(#"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z "#)
        for line in lines { #expect(line.prefixMatch(of: timestamp) != nil, "\(line)") }
        let bodies = lines.map { $0.drop(while: { $0 != " " }).dropFirst() }
        #expect(bodies[0] == #"INFO unit-label hello world user=alice note="two words" quote="say \"hi\"" empty="" eq="a=b""#)
        #expect(bodies[1] == "WARN unit-label careful")
        #expect(bodies[2] == "ERROR unit-label broken code=13")
    }

    /// A line far longer than the stack buffer (a long error message) is still written whole, in both formats.
    @Test func writesLinesLongerThanTheStackBuffer() async throws {
        let result = try #require(
            await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
                let long = String(repeating: "0123456789", count: 400)
                Logger(label: "long-text").info("m", ["error": long + " end", "after": "kept"])
                // A warning goes out at once, taking the lines before it along (the exit test ends the process
                // without running exit handlers).
                Logger(label: "long-json", format: .json).warning("m", ["error": long, "after": "kept"])
            }
        )
        let long = String(repeating: "0123456789", count: 400)
        let lines = String(decoding: result.standardErrorContent, as: UTF8.self).split(separator: "\n")
        let text = try #require(lines.first { $0.contains(" long-text ") })
        #expect(text.hasSuffix(#"INFO long-text m error="\#(long) end" after=kept"#))
        let json = try #require(lines.first { $0.contains(#""logger":"long-json""#) })
        #expect(json.hasSuffix(#""msg":"m","error":"\#(long)","after":"kept"}"#))
    }
}

@Suite struct LogLineTests {
    private func line(_ build: (inout LogLine) -> Void) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 256) { buffer in
            var line = LogLine(buffer)
            build(&line)
            return String(decoding: line.bytes, as: UTF8.self)
        }
    }

    @Test(arguments: [
        0, 59, 86_399, 86_400, 951_782_400, 951_868_799, 951_868_800, 1_709_164_800, 1_764_504_000,
        4_107_542_400, 4_107_628_799, 253_402_300_799,
    ])
    func timestampMatchesGmtime(seconds: Int) {
        var time = seconds
        var parts = tm()
        gmtime_r(&time, &parts)
        let expected = String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
            Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), 7)
        #expect(line { $0.appendTimestamp(seconds: seconds, milliseconds: 7) } == expected)
    }

    /// The text up to the seconds is kept per thread and second: lines of one second, of the next, and of an earlier
    /// one again each read their own time (and 1970's first second is not mistaken for the empty cache).
    @Test func secondsReusedOnAThreadStayExact() {
        let times = [(0, 0), (0, 999), (1_764_504_000, 5), (1_764_504_000, 50), (1_764_504_001, 500), (1_764_504_000, 7), (0, 1)]
        for (seconds, milliseconds) in times {
            var time = seconds
            var parts = tm()
            gmtime_r(&time, &parts)
            let expected = String(
                format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), milliseconds)
            #expect(line { $0.appendTimestamp(seconds: seconds, milliseconds: milliseconds) } == expected)
        }
    }

    @Test func everyDayOfFourCenturiesMatchesGmtime() {
        for day in stride(from: 0, to: 146_097 * 2, by: 1) where day % 7 == 0 || day % 146_097 < 400 {
            var time = day * 86_400 + 43_210
            var parts = tm()
            gmtime_r(&time, &parts)
            let text = line { $0.appendTimestamp(seconds: time, milliseconds: 999) }
            let expected = String(
                format: "%04d-%02d-%02dT12:00:10.999Z", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                Int(parts.tm_mday))
            if text != expected {
                Issue.record("day \(day): \(text) != \(expected)")
                return
            }
        }
    }

    private static func append(
        _ entry: LogLine.Entry, _ fields: some LogFieldList, format: Logger.Format, to line: inout LogLine
    ) -> Bool {
        switch format {
        case .text: line.appendText(entry, fields: fields)
        case .json: line.appendJSON(entry, fields: fields)
        }
    }

    private func entry(requestID: String? = nil) -> LogLine.Entry {
        LogLine.Entry(seconds: 0, milliseconds: 0, level: .info, label: "l", message: "m", requestID: requestID)
    }

    @Test func capacityCoversTheWorstCaseEscaping() {
        let fields: KeyValuePairs<String, String> = ["k": "\"\\\n\"", "e": "", "c": "\u{1}\u{7F}"]
        let capacity = LogLine.capacity(format: .text, label: "l", message: "m", requestID: "r", fields: fields)
        let text = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var line = LogLine(buffer)
            let fits = line.appendText(entry(requestID: "r"), fields: fields)
            #expect(fits)
            #expect(line.count <= capacity)
            return String(decoding: line.bytes, as: UTF8.self)
        }
        #expect(text == "1970-01-01T00:00:00.000Z INFO l m request_id=r k=\"\\\"\\\\\\n\\\"\" e=\"\" c=\"??\"\n")
        let jsonCapacity = LogLine.capacity(format: .json, label: "l", message: "m", requestID: "r", fields: fields)
        let json = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: jsonCapacity) { buffer in
            var line = LogLine(buffer)
            let fits = line.appendJSON(entry(requestID: "r"), fields: fields)
            #expect(fits)
            #expect(line.count <= jsonCapacity)
            return String(decoding: line.bytes, as: UTF8.self)
        }
        #expect(json == #"{"time":"1970-01-01T00:00:00.000Z","level":"info","logger":"l","msg":"m","request_id":"r","k":"\"\\\n\"","e":"","c":"\u0001\u007f"}"# + "\n")
    }

    /// The table check agrees with the byte rule for every byte value at every position of values of several lengths.
    @Test func quotingCheckAgreesWithTheByteRule() {
        for length in [1, 7, 8, 9, 17] {
            for position in 0..<length {
                for byte in UInt8.min...UInt8.max {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    bytes[position] = byte
                    let needs = bytes.withUnsafeBufferPointer { LogLine.needsQuotes($0) }
                    if needs != LogLine.isSpecial(byte) {
                        Issue.record("byte \(byte) at \(position) of \(length): \(needs)")
                        return
                    }
                }
            }
        }
        #expect([UInt8]().withUnsafeBufferPointer { LogLine.needsQuotes($0) })
        #expect(Array("ab\u{e9}=".utf8).withUnsafeBufferPointer { LogLine.needsQuotes($0) })
        #expect(!Array("/entitlements.v1.EntitlementService/SyncStatus\u{e9}".utf8).withUnsafeBufferPointer { LogLine.needsQuotes($0) })
    }

    /// Long values of nothing but the costliest bytes of each format: the fixed slack cannot hide a short estimate.
    @Test(arguments: Logger.Format.allCases)
    func capacityCoversLongWorstCaseValues(format: Logger.Format) {
        let worst = String(repeating: format == .json ? "\u{1}" : "\"", count: 400)
        let fields: KeyValuePairs<String, String> = ["a": worst, "b": worst]
        let capacity = LogLine.capacity(format: format, label: "l", message: "m", requestID: worst, fields: fields)
        let entry = LogLine.Entry(seconds: 0, milliseconds: 0, level: .info, label: "l", message: "m", requestID: worst)
        let count = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var line = LogLine(buffer)
            let fits = Self.append(entry, fields, format: format, to: &line)
            #expect(fits)
            return line.count
        }
        #expect(count <= capacity)
        #expect(count > 3 * 400 * (format == .json ? 6 : 2))
    }

    /// Room is checked for the worst case before the start and before each field: in a buffer of any size, a line
    /// is either reported complete and the same as in a buffer of its worst-case size, or reported as not fitting;
    /// nothing is ever written past the buffer's end.
    @Test(arguments: Logger.Format.allCases)
    func aLineThatMayNotFitIsReported(format: Logger.Format) {
        let fields: KeyValuePairs<String, String> = ["a": String(repeating: "x", count: 300), "b": "y"]
        let entry = LogLine.Entry(seconds: 0, milliseconds: 0, level: .info, label: "l", message: "m", requestID: "r")
        let capacity = LogLine.capacity(format: format, label: "l", message: "m", requestID: "r", fields: fields)
        func write(size: Int) -> (fits: Bool, line: [UInt8], pastEnd: Bool) {
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: size + 64) { memory in
                memory.initialize(repeating: 0xEE)
                var line = LogLine(UnsafeMutableBufferPointer(rebasing: memory[..<size]))
                let fits = Self.append(entry, fields, format: format, to: &line)
                return (fits, Array(line.bytes), !memory[size...].allSatisfy { $0 == 0xEE })
            }
        }
        let whole = write(size: capacity)
        #expect(whole.fits)
        var sawBoth = (fits: false, notFits: false)
        for size in stride(from: 0, through: capacity, by: 7) {
            let attempt = write(size: size)
            #expect(!attempt.pastEnd, "\(size) bytes")
            #expect(!attempt.fits || attempt.line == whole.line, "\(size) bytes")
            if attempt.fits { sawBoth.fits = true } else { sawBoth.notFits = true }
        }
        #expect(sawBoth.fits && sawBoth.notFits)
    }

    /// A line's fields as the per-call line adds them: keys fixed in the code, numbers in decimal.
    private struct TypedFields: LogFieldList {
        var numbers: [UInt64]
        func write(to fields: inout LogFields) {
            fields.add("user", "two words")
            for number in numbers { fields.add("n", number) }
            fields.add("k", "")
        }
    }

    /// Numbers are written in decimal without a string (0, every power of ten's edge, the largest), fixed keys as
    /// they are; values are quoted and escaped as any other, and the sizing pass covers them.
    @Test(arguments: Logger.Format.allCases)
    func typedFieldsAreWrittenLikeStrings(format: Logger.Format) {
        var numbers: [UInt64] = [0, 7, .max, .max - 1]
        var power: UInt64 = 10
        for _ in 1...19 {
            numbers += [power - 1, power]
            power = power &* 10
        }
        let fields = TypedFields(numbers: numbers)
        let entry = LogLine.Entry(seconds: 0, milliseconds: 0, level: .info, label: "l", message: "m", requestID: nil)
        let capacity = LogLine.capacity(format: format, label: "l", message: "m", requestID: nil, fields: fields)
        let text = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var line = LogLine(buffer)
            let fits = Self.append(entry, fields, format: format, to: &line)
            #expect(fits)
            return String(decoding: line.bytes, as: UTF8.self)
        }
        let start = "1970-01-01T00:00:00.000Z"
        switch format {
        case .text:
            let numberFields = numbers.map { " n=\($0)" }.joined()
            #expect(text == "\(start) INFO l m user=\"two words\"\(numberFields) k=\"\"\n")
        case .json:
            let numberFields = numbers.map { #","n":"\#($0)""# }.joined()
            #expect(text == #"{"time":"\#(start)","level":"info","logger":"l","msg":"m","user":"two words""#
                + numberFields + #","k":""}"# + "\n")
        }
    }

    /// The JSON line parses back to the same strings, whatever the values hold.
    @Test func jsonLinesParseBack() throws {
        let fields: KeyValuePairs<String, String> = ["user": "é ü \u{2028} 日本", "note": "tab\there", "quote": "\"}{,:"]
        let capacity = LogLine.capacity(
            format: .json, label: "lab", message: "msg \"x\"", requestID: nil, fields: fields)
        let text = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var line = LogLine(buffer)
            let fits = line.appendJSON(
                LogLine.Entry(seconds: 1, milliseconds: 2, level: .warning, label: "lab", message: "msg \"x\"", requestID: nil),
                fields: fields)
            #expect(fits)
            return String(decoding: line.bytes, as: UTF8.self)
        }
        #expect(text.hasSuffix("}\n") && text.filter { $0 == "\n" }.count == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String])
        #expect(object == [
            "time": "1970-01-01T00:00:01.002Z", "level": "warn", "logger": "lab", "msg": "msg \"x\"",
            "user": "é ü \u{2028} 日本", "note": "tab\there", "quote": "\"}{,:",
        ])
    }
}

@Suite struct RequestIDTests {
    @Test(arguments: ["abc", "req-1.2_3:4", String(repeating: "a", count: 64)])
    func aSafeClientIDIsKept(id: String) {
        #expect(RequestID.accept(id) == id)
    }

    @Test(arguments: [nil, "", "has space", "quote\"", "new\nline", "é", String(repeating: "a", count: 65), "a=b"])
    func anythingElseIsReplaced(id: String?) {
        let accepted = RequestID.accept(id)
        #expect(accepted != id)
        #expect(accepted.utf8.count == 15 && accepted.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
    }

    /// The word-at-a-time digits agree with the standard library's, for every digit value at every position.
    @Test func hexDigitsAreTheLow60BitsInOrder() {
        var values: [UInt64] = [0, 1, 0xF, 0xA, 0x0FFF_FFFF_FFFF_FFFF, .max, 0x0123_4567_89AB_CDEF, 0xFEDC_BA98_7654_3210]
        for position in 0..<16 {
            for digit in UInt64(0)...15 { values.append(digit << (position * 4) | 0x5555_5555_5555_5555 & ~(0xF << (position * 4))) }
        }
        for value in values {
            let expected = String(value & (1 << 60 - 1), radix: 16)
            #expect(RequestID.hexDigits(value) == String(repeating: "0", count: 15 - expected.count) + expected, "\(value)")
        }
    }

    @Test func generatedIDsDiffer() {
        #expect(Set((0..<1000).map { _ in RequestID.generate() }).count == 1000)
    }

    /// Each thread seeds its own generator: threads started together must not produce the same sequence.
    @Test func idsFromManyThreadsDiffer() async {
        let batches = await withTaskGroup(of: [String].self) { group in
            for _ in 0..<8 {
                group.addTask { (0..<500).map { _ in RequestID.generate() } }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(batches.joined()).count == 8 * 500)
    }

    @Test func aLineLoggedInsideACallCarriesItsID() async throws {
        let result = try #require(
            await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
                let logger = Logger(label: "rid-label", format: .json)
                RequestID.$taskValue.withValue("call-42") { logger.info("inside", ["k": "v"]) }
                RequestID.withThreadValue("sync-7") { logger.info("synchronous", ["k": "v"]) }
                // A warning goes out at once, taking the buffered lines along (the child may skip atexit).
                logger.warning("outside")
            }
        )
        let lines = String(decoding: result.standardErrorContent, as: UTF8.self)
            .split(separator: "\n").filter { $0.contains("rid-label") }
        try #require(lines.count == 3)
        #expect(lines[0].hasSuffix(#""logger":"rid-label","msg":"inside","request_id":"call-42","k":"v"}"#))
        #expect(lines[1].hasSuffix(#""logger":"rid-label","msg":"synchronous","request_id":"sync-7","k":"v"}"#))
        #expect(lines[2].hasSuffix(#""level":"warn","logger":"rid-label","msg":"outside"}"#))
    }

    /// A thread binding holds for its body only, nests, stays on its thread, and gives way to a task value bound
    /// inside it.
    @Test func aThreadBindingIsScopedToItsBodyAndThread() async {
        #expect(RequestID.current == nil)
        RequestID.withThreadValue("outer") {
            #expect(RequestID.current == "outer")
            RequestID.withThreadValue("inner") { #expect(RequestID.current == "inner") }
            #expect(RequestID.current == "outer")
            RequestID.$taskValue.withValue("task") { #expect(RequestID.current == "task") }
            let seenElsewhere = SeenValue()
            let thread = Thread { seenElsewhere.value.withLock { $0 = RequestID.current } }
            thread.start()
            while !thread.isFinished { usleep(1000) }
            #expect(seenElsewhere.value.withLock { $0 } == nil)
        }
        #expect(RequestID.current == nil)
        struct Failure: Error {}
        #expect(throws: Failure.self) { try RequestID.withThreadValue("thrown") { throw Failure() } }
        #expect(RequestID.current == nil)
    }
}

private final class SeenValue: Sendable {
    let value = Mutex<String?>("unset")
}
