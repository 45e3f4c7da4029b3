import Testing

/// The hand-written codecs against protoc-generated Python classes, in both directions, for
/// every message of `Protos/entitlements/v1`.
@Suite struct PythonInteropTests {
    @Test func everyMessageRoundTripsThroughProtocGeneratedPython() async throws {
        let python = try PythonProtobuf()
        defer { python.removeFiles() }
        try await python.compileProtos()
        let emitted = try await python.emit()

        // Every message in the protos has a populated case and an empty case; both sides know the same cases.
        for message in emitted.messages {
            let populated = Fixtures.all.contains {
                $0.name == message || $0.name.hasPrefix("\(message)#") && !$0.name.hasSuffix("#empty")
            }
            #expect(populated, "no populated fixture for \(message)")
            #expect(Fixtures.all.contains { $0.name == "\(message)#empty" }, "no empty fixture for \(message)")
        }
        #expect(Set(emitted.cases.keys) == Set(Fixtures.all.map(\.name)))

        // Python → Swift: decode Python's bytes (unknown fields included), compare, re-encode.
        var reencoded: [String: [UInt8]] = [:]
        var swift: [String: [UInt8]] = [:]
        for fixture in Fixtures.all {
            swift[fixture.name] = fixture.swiftEncoding()
            guard let bytes = emitted.cases[fixture.name] else { continue }
            let (encoding, mismatch) = try fixture.decodeAndReencode(bytes)
            #expect(mismatch == nil, "\(fixture.name): \(mismatch ?? "")")
            #expect(hexString(encoding) == hexString(bytes), "\(fixture.name): Swift's re-encoding differs")
            reencoded[fixture.name] = encoding
        }

        // Swift → Python: Python parses the re-encodings and Swift's own encodings and compares
        // them with its values and its bytes.
        let failures = try await python.check(reencoded: reencoded, swift: swift)
        for (key, why) in failures.sorted(by: { $0.key < $1.key }) {
            Issue.record("Python rejects \(key): \(why)")
        }
        #expect(failures.isEmpty)
    }
}
