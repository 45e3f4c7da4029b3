public import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Starts child processes for tests. Foundation's `Process.run()` on Linux crashes now and then (a bad memcpy inside
/// it) while the suites run in parallel, even with launches serialized: the Python helpers, which start most
/// children, use `posix_spawn` directly instead; the few other launches go through Foundation one at a time.
public enum ProcessLaunch {
    private static let lock = Mutex(())

    public static func run(_ process: Process) throws {
        try lock.withLock { _ in try process.run() }
    }

    public struct SpawnError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Runs `executable` (an absolute path) with `arguments` in `directory`, standard input from /dev/null and
    /// standard output and error written to the files given, and waits for it. Returns its exit status (128 + the
    /// signal when a signal ended it).
    public static func spawn(
        _ executable: String, _ arguments: [String], directory: String, stdout: String, stderr: String
    ) throws -> Int32 {
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
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { throw SpawnError(description: "waitpid: \(String(cString: strerror(errno)))") }
        }
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }
}
