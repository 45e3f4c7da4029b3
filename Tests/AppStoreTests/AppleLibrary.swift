import Foundation

/// Runs Apple's app-store-server-library (Python, from PyPI) over tokens made by the tests.
///
/// The interpreter is `$ENTITLEMENTD_PYTHON`, else `<package root>/.venv/bin/python`, else `python3` from `PATH`.
/// A missing interpreter or library is a failure, never a skip: agreeing with Apple is the proof.
struct AppleLibrary {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    struct Case: Encodable {
        var name: String
        var kind: String
        var token: String
        var environment: String
        var bundle_id: String
        var app_apple_id: Int64?
        var roots: [String]
    }

    struct Verdict: Decodable {
        var accepted: Bool
        var status: String
    }

    static let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let packageRoot = testsDirectory.deletingLastPathComponent().deletingLastPathComponent()
    static let script = testsDirectory.appendingPathComponent("Resources/apple_verify.py").path
    static let setupHint = """
        The differential test needs Python 3 with Apple's app-store-server-library (pinned in \
        Tests/Interop/requirements.txt). Create the venv at the package root (python3 -m venv .venv && \
        .venv/bin/pip install -r Tests/Interop/requirements.txt) or point ENTITLEMENTD_PYTHON at an interpreter that \
        has it.
        """

    let interpreter: [String]
    let workDirectory: URL

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
        workDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("appstore-diff-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: workDirectory, withIntermediateDirectories: true)
    }

    func removeFiles() {
        try? FileManager.default.removeItem(at: workDirectory)
    }

    /// Writes the roots as DER files and the cases as JSON, runs the script, returns Apple's verdict per case name.
    func verify(roots: [String: [UInt8]], cases: [Case]) throws -> [String: Verdict] {
        var rootPaths: [String: String] = [:]
        for (name, der) in roots {
            let path = workDirectory.appendingPathComponent("\(name).der")
            try Data(der).write(to: path)
            rootPaths[name] = path.path
        }
        struct Spec: Encodable {
            var roots: [String: String]
            var cases: [Case]
        }
        let input = workDirectory.appendingPathComponent("cases.json")
        try JSONEncoder().encode(Spec(roots: rootPaths, cases: cases)).write(to: input)
        return try JSONDecoder().decode([String: Verdict].self, from: run([Self.script, input.path]))
    }

    private func run(_ arguments: [String]) throws -> Data {
        let stdout = workDirectory.appendingPathComponent("stdout")
        let stderr = workDirectory.appendingPathComponent("stderr")
        for file in [stdout, stderr] { try Data().write(to: file) }
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
            throw Failure(description: "`\(command)` exited with \(process.terminationStatus):\n\(message)\n\(Self.setupHint)")
        }
        return try Data(contentsOf: stdout)
    }
}
