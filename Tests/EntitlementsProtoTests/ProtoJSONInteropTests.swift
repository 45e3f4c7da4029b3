import ProtoJSON
import StandardServices
import Testing

/// The JSON mapping, driven by the descriptors the server embeds, against `google.protobuf.json_format` for every case
/// of `Resources/roundtrip.py` (every message of `Protos/entitlements/v1`, populated and empty), both ways, and with
/// every field without presence written (`always_print_fields_with_no_presence`, what `entctl --json` prints).
@Suite struct ProtoJSONInteropTests {
    @Test func everyMessageIsWrittenAndReadAsProtobufsOwnJSONMapping() async throws {
        let python = try PythonProtobuf()
        defer { python.removeFiles() }
        try await python.compileProtos()
        let cases = try await python.emitJSON()
        #expect(cases.count > 100)
        let schema = try ProtoSchema(fileDescriptorSet: EmbeddedDescriptors.fileDescriptorSet)
        var answers: [String: (json: String, jsonWithDefaults: String, binary: [UInt8])] = [:]
        for (name, known) in cases {
            let json = try schema.json(fromBinary: known.binary, messageName: known.type)
            let withDefaults = try schema.json(fromBinary: known.binary, messageName: known.type, emittingDefaults: true)
            let binary = try schema.binary(fromJSON: Array(known.json.utf8), messageName: known.type)
            answers[name] = (String(decoding: json, as: UTF8.self), String(decoding: withDefaults, as: UTF8.self), binary)
        }
        let failures = try await python.checkJSON(answers)
        #expect(failures.isEmpty, "\(failures.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "\n"))")
    }
}
