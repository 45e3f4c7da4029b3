import Foundation
import TestSupport

/// Runs protoc-generated Python classes (via `grpc_tools`) next to the Swift codecs.
///
/// A missing interpreter or a missing `grpc_tools` is an error (``PythonHelper``), never a skip: the
/// cross-check is the proof that the hand-written codecs match the contract.
struct PythonProtobuf {
    static let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let packageRoot = RepositoryFiles.root
    static let script = testsDirectory.appendingPathComponent("Resources/roundtrip.py").path

    static let setupHint = """
        The EntitlementsProto cross-check needs Python 3 with grpcio-tools and protobuf. Create the venv at the \
        package root (python3 -m venv .venv && .venv/bin/pip install grpcio-tools protobuf) or point \
        ENTITLEMENTD_PYTHON at an interpreter that has them.
        """

    let python: PythonHelper
    var generatedDirectory: URL { python.workDirectory.appendingPathComponent("generated") }

    /// Picks the interpreter and creates a fresh temporary directory; call ``removeFiles()`` when done.
    init() throws {
        python = try PythonHelper(
            packageRoot: Self.packageRoot, workDirectoryPrefix: "entitlements-proto", setupHint: Self.setupHint
        )
        try FileManager.default.createDirectory(at: generatedDirectory, withIntermediateDirectories: true)
    }

    /// `python -m grpc_tools.protoc -I Protos --python_out=<generated> Protos/entitlements/v1/*.proto`.
    func compileProtos() async throws {
        let protoDirectory = Self.packageRoot.appendingPathComponent("Protos/entitlements/v1")
        let protos = try FileManager.default.contentsOfDirectory(atPath: protoDirectory.path)
            .filter { $0.hasSuffix(".proto") }
            .sorted()
            .map { "Protos/entitlements/v1/\($0)" }
        guard !protos.isEmpty else { throw PythonHelper.Failure(description: "no .proto files in \(protoDirectory.path)") }
        _ = try await python.run(["-m", "grpc_tools.protoc", "-I", "Protos", "--python_out=\(generatedDirectory.path)"] + protos)
    }

    func removeFiles() {
        python.removeFiles()
    }

    /// `roundtrip.py emit`: every message name in the protos and every case Python serialized.
    func emit() async throws -> (messages: [String], cases: [String: [UInt8]]) {
        struct Output: Decodable {
            let messages: [String]
            let cases: [String: String]
        }
        let output = try await JSONDecoder().decode(Output.self, from: python.run([Self.script, "emit", generatedDirectory.path]))
        return (output.messages, output.cases.mapValues(hexBytes))
    }

    /// `roundtrip.py check`: what Python objects to in Swift's bytes, by case.
    func check(reencoded: [String: [UInt8]], swift: [String: [UInt8]]) async throws -> [String: String] {
        struct Output: Decodable {
            let failures: [String: String]
        }
        let input = python.workDirectory.appendingPathComponent("swift-encodings.json")
        try JSONEncoder().encode(["reencoded": reencoded.mapValues(hexString), "swift": swift.mapValues(hexString)])
            .write(to: input)
        let output = try await python.run([Self.script, "check", generatedDirectory.path, input.path])
        return try JSONDecoder().decode(Output.self, from: output).failures
    }

    /// `roundtrip.py emit-json`: each case's type, bytes and `json_format` JSON, by case.
    func emitJSON() async throws -> [String: (type: String, binary: [UInt8], json: String)] {
        struct Case: Decodable {
            let type: String
            let binary: String
            let json: String
        }
        struct Output: Decodable {
            let cases: [String: Case]
        }
        let output = try await JSONDecoder().decode(
            Output.self, from: python.run([Self.script, "emit-json", generatedDirectory.path]))
        return output.cases.mapValues { ($0.type, hexBytes($0.binary), $0.json) }
    }

    /// `roundtrip.py check-json`: what `json_format` objects to in ProtoJSON's answers, by case.
    func checkJSON(_ answers: [String: (json: String, jsonWithDefaults: String, binary: [UInt8])]) async throws
        -> [String: String]
    {
        struct Output: Decodable {
            let failures: [String: String]
        }
        let input = python.workDirectory.appendingPathComponent("swift-json.json")
        try JSONEncoder().encode(
            answers.mapValues { ["json": $0.json, "jsonWithDefaults": $0.jsonWithDefaults, "binary": hexString($0.binary)] }
        ).write(to: input)
        let output = try await python.run([Self.script, "check-json", generatedDirectory.path, input.path])
        return try JSONDecoder().decode(Output.self, from: output).failures
    }
}
