import Foundation
@testable import RPCCore
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

    @Test func capacityCoversTheWorstCaseEscaping() {
        let fields: KeyValuePairs<String, String> = ["k": "\"\\\n\"", "e": ""]
        let capacity = LogLine.capacity(label: "l", message: "m", fields: fields)
        let text = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var line = LogLine(buffer)
            line.appendEntry(seconds: 0, milliseconds: 0, level: "INFO", label: "l", message: "m", fields: fields)
            #expect(line.count <= capacity)
            return String(decoding: line.bytes, as: UTF8.self)
        }
        #expect(text == "1970-01-01T00:00:00.000Z INFO l m k=\"\\\"\\\\\\n\\\"\" e=\"\"\n")
    }
}
