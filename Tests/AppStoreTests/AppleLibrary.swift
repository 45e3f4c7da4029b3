import Foundation
import TestSupport

/// Runs Apple's app-store-server-library (Python, from PyPI) over tokens made by the tests.
///
/// A missing interpreter or library is a failure (``PythonHelper``), never a skip: agreeing with Apple is the proof.
struct AppleLibrary {
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
    static let packageRoot = RepositoryFiles.root
    static let script = testsDirectory.appendingPathComponent("Resources/apple_verify.py").path
    static let setupHint = """
        The differential test needs Python 3 with Apple's app-store-server-library (pinned in \
        Tests/Interop/requirements.txt). Create the venv at the package root (python3 -m venv .venv && \
        .venv/bin/pip install -r Tests/Interop/requirements.txt) or point ENTITLEMENTD_PYTHON at an interpreter that \
        has it.
        """

    let python: PythonHelper

    init() throws {
        python = try PythonHelper(packageRoot: Self.packageRoot, workDirectoryPrefix: "appstore-diff", setupHint: Self.setupHint)
    }

    func removeFiles() {
        python.removeFiles()
    }

    /// Writes the roots as DER files and the cases as JSON, runs the script, returns Apple's verdict per case name.
    func verify(roots: [String: [UInt8]], cases: [Case]) async throws -> [String: Verdict] {
        var rootPaths: [String: String] = [:]
        for (name, der) in roots {
            let path = python.workDirectory.appendingPathComponent("\(name).der")
            try Data(der).write(to: path)
            rootPaths[name] = path.path
        }
        struct Spec: Encodable {
            var roots: [String: String]
            var cases: [Case]
        }
        let input = python.workDirectory.appendingPathComponent("cases.json")
        try JSONEncoder().encode(Spec(roots: rootPaths, cases: cases)).write(to: input)
        return try await JSONDecoder().decode([String: Verdict].self, from: python.run([Self.script, input.path]))
    }
}
