public import Foundation
import Synchronization

/// Starts child processes one at a time. Foundation's `Process.run()` on Linux has crashed (a bad memcpy inside it)
/// when test suites running in parallel started processes at the same moment; waiting for them stays parallel.
public enum ProcessLaunch {
    private static let lock = Mutex(())

    public static func run(_ process: Process) throws {
        try lock.withLock { _ in try process.run() }
    }
}
