import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Starts child processes for tests with `posix_spawn`. Foundation's `Process.run()` on Linux crashes now and then
/// (a bad memcpy inside it) while the suites run in parallel, and its `waitUntilExit()` blocks the caller's thread.
public enum ProcessLaunch {
    public struct SpawnError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Runs `executable` (an absolute path) with `arguments` in `directory`, standard input from /dev/null and
    /// standard output and error written to the files given, and returns its exit status (128 + the signal when a
    /// signal ended it). The wait happens on a thread of its own: on a 2-core machine the cooperative pool has two
    /// threads, and a test blocking one of them for a Python child starves the servers other suites are calling.
    public static func run(
        _ executable: String, _ arguments: [String], directory: String,
        stdout: String = "/dev/null", stderr: String = "/dev/null"
    ) async throws -> Int32 {
        let pid = try start(executable, arguments, directory: directory, stdout: stdout, stderr: stderr)
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try waitForExit(pid) }) }
        }
    }

    /// ``run(_:_:directory:stdout:stderr:)`` blocking the caller, for one-time setup in synchronous initializers.
    public static func runBlocking(
        _ executable: String, _ arguments: [String], directory: String,
        stdout: String = "/dev/null", stderr: String = "/dev/null"
    ) throws -> Int32 {
        try waitForExit(start(executable, arguments, directory: directory, stdout: stdout, stderr: stderr))
    }

    private static func start(
        _ executable: String, _ arguments: [String], directory: String, stdout: String, stderr: String
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        // glibc's addchdir_np is not in Swift's Glibc module: coreutils' env changes directory for the child.
        let command = ["/usr/bin/env", "-C", directory, executable] + arguments
        var argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, command[0], &actions, nil, &argv, environ)
        guard rc == 0 else {
            throw SpawnError(description: "posix_spawn \(executable): \(String(cString: strerror(rc)))")
        }
        return pid
    }

    private static func waitForExit(_ pid: pid_t) throws -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { throw SpawnError(description: "waitpid: \(String(cString: strerror(errno)))") }
        }
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }
}
