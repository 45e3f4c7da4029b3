import RPCCore
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
