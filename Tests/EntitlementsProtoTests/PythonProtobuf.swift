import Foundation

/// Runs protoc-generated Python classes (via `grpc_tools`) next to the Swift codecs.
///
/// The interpreter is `$ENTITLEMENTD_PYTHON`, else `<package root>/.venv/bin/python`, else
/// `python3` from `PATH`. A missing interpreter or a missing `grpc_tools` is an error, never a
/// skip: the cross-check is the proof that the hand-written codecs match the contract.
struct PythonProtobuf {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let packageRoot = testsDirectory.deletingLastPathComponent().deletingLastPathComponent()
    static let script = testsDirectory.appendingPathComponent("Resources/roundtrip.py").path

    static let setupHint = """
        The EntitlementsProto cross-check needs Python 3 with grpcio-tools and protobuf. Create the venv at the \
        package root (python3 -m venv .venv && .venv/bin/pip install grpcio-tools protobuf) or point \
        ENTITLEMENTD_PYTHON at an interpreter that has them.
        """

    let interpreter: [String]
    let workDirectory: URL
    var generatedDirectory: URL { workDirectory.appendingPathComponent("generated") }

    /// Picks the interpreter and creates a fresh temporary directory; call ``removeFiles()`` when done.
    init() throws {
        let environment = ProcessInfo.processInfo.environment
        let venv = Self.packageRoot.appendingPathComponent(".venv/bin/python").path
        if let python = environment["ENTITLEMENTD_PYTHON"], !python.isEmpty {
            interpreter = [python]
        } else if FileManager.default.isExecutableFile(atPath: venv) {
            interpreter = [venv]
        } else {
            interpreter = ["/usr/bin/env", "python3"]
        }
        workDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("entitlements-proto-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: generatedDirectory, withIntermediateDirectories: true)
    }

    /// `python -m grpc_tools.protoc -I Protos --python_out=<generated> Protos/entitlements/v1/*.proto`.
    func compileProtos() throws {
        let protoDirectory = Self.packageRoot.appendingPathComponent("Protos/entitlements/v1")
        let protos = try FileManager.default.contentsOfDirectory(atPath: protoDirectory.path)
            .filter { $0.hasSuffix(".proto") }
            .sorted()
            .map { "Protos/entitlements/v1/\($0)" }
        guard !protos.isEmpty else { throw Failure(description: "no .proto files in \(protoDirectory.path)") }
        _ = try run(["-m", "grpc_tools.protoc", "-I", "Protos", "--python_out=\(generatedDirectory.path)"] + protos)
    }

    func removeFiles() {
        try? FileManager.default.removeItem(at: workDirectory)
    }

    /// `roundtrip.py emit`: every message name in the protos and every case Python serialized.
    func emit() throws -> (messages: [String], cases: [String: [UInt8]]) {
        struct Output: Decodable {
            let messages: [String]
            let cases: [String: String]
        }
        let output = try JSONDecoder().decode(Output.self, from: run([Self.script, "emit", generatedDirectory.path]))
        return (output.messages, output.cases.mapValues(hexBytes))
    }

    /// `roundtrip.py check`: what Python objects to in Swift's bytes, by case.
    func check(reencoded: [String: [UInt8]], swift: [String: [UInt8]]) throws -> [String: String] {
        struct Output: Decodable {
            let failures: [String: String]
        }
        let input = workDirectory.appendingPathComponent("swift-encodings.json")
        try JSONEncoder().encode(["reencoded": reencoded.mapValues(hexString), "swift": swift.mapValues(hexString)])
            .write(to: input)
        let output = try run([Self.script, "check", generatedDirectory.path, input.path])
        return try JSONDecoder().decode(Output.self, from: output).failures
    }

    /// Runs the interpreter in the package root; returns stdout, throws with stderr on failure.
    private func run(_ arguments: [String]) throws -> Data {
        let stdout = workDirectory.appendingPathComponent("stdout")
        let stderr = workDirectory.appendingPathComponent("stderr")
        for file in [stdout, stderr] {
            try Data().write(to: file)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: interpreter[0])
        process.arguments = interpreter.dropFirst() + arguments
        process.currentDirectoryURL = Self.packageRoot
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: stdout)
        process.standardError = try FileHandle(forWritingTo: stderr)
        let command = (interpreter + arguments).joined(separator: " ")
        do {
            try process.run()
        } catch {
            throw Failure(description: "cannot start `\(command)`: \(error)\n\(Self.setupHint)")
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let message = (try? String(contentsOf: stderr, encoding: .utf8)) ?? ""
            throw Failure(description: """
                `\(command)` exited with \(process.terminationStatus):
                \(message)
                \(Self.setupHint)
                """)
        }
        return try Data(contentsOf: stdout)
    }
}
