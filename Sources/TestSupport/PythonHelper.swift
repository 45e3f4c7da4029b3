public import Foundation

/// Runs a test suite's Python helper script in the package root, with a private temporary directory for its files.
///
/// The interpreter is `$ENTITLEMENTD_PYTHON`, else `<package root>/.venv/bin/python`, else `python3` from `PATH`.
/// A missing interpreter or library is a failure that carries `setupHint`, never a skip: the Python side is the
/// independent reference the test compares against.
public struct PythonHelper: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String

        public init(description: String) {
            self.description = description
        }
    }

    public let packageRoot: URL
    public let workDirectory: URL
    let interpreter: [String]
    let setupHint: String

    /// Picks the interpreter and creates a fresh temporary directory; call ``removeFiles()`` when done.
    public init(packageRoot: URL, workDirectoryPrefix: String, setupHint: String) throws {
        let venv = packageRoot.appendingPathComponent(".venv/bin/python").path
        if let python = ProcessInfo.processInfo.environment["ENTITLEMENTD_PYTHON"], !python.isEmpty {
            interpreter = [python]
        } else if FileManager.default.isExecutableFile(atPath: venv) {
            interpreter = [venv]
        } else {
            interpreter = ["/usr/bin/env", "python3"]
        }
        self.packageRoot = packageRoot
        self.setupHint = setupHint
        workDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(workDirectoryPrefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: workDirectory, withIntermediateDirectories: true)
    }

    public func removeFiles() {
        try? FileManager.default.removeItem(at: workDirectory)
    }

    /// Runs the interpreter with `arguments`; returns stdout, throws with stderr and the setup hint on failure.
    public func run(_ arguments: [String]) async throws -> Data {
        let stdout = workDirectory.appendingPathComponent("stdout")
        let stderr = workDirectory.appendingPathComponent("stderr")
        let command = (interpreter + arguments).joined(separator: " ")
        let status: Int32
        do {
            status = try await ProcessLaunch.run(
                interpreter[0], Array(interpreter.dropFirst()) + arguments, directory: packageRoot.path,
                stdout: stdout.path, stderr: stderr.path)
        } catch {
            throw Failure(description: "cannot start `\(command)`: \(error)\n\(setupHint)")
        }
        guard status == 0 else {
            let message = (try? String(contentsOf: stderr, encoding: .utf8)) ?? ""
            throw Failure(description: """
                `\(command)` exited with \(status):
                \(message)
                \(setupHint)
                """)
        }
        return try Data(contentsOf: stdout)
    }
}
