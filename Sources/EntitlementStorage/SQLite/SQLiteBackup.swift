public import EntitlementDomain
import Glibc

/// `entitlementd backup`: a consistent copy of a live SQLite database, taken with SQLite's online backup API while
/// the server keeps writing (WAL mode: the copy reads one snapshot, writers never wait for it).
///
/// The copy is written beside the destination, checked with `PRAGMA integrity_check`, synced and only then renamed
/// into place, so `destination` is either a whole, checked database or absent. An existing destination is refused.
public enum SQLiteBackup {
    public struct Report: Sendable {
        public var bytes: Int64
        public var schemaVersion: Int64
    }

    public static func backUp(databasePath: String, to destination: String) throws(StorageError) -> Report {
        var info = stat()
        guard stat(destination, &info) != 0 else {
            throw .conflict("\(destination) exists; name a new file (a backup never overwrites one)")
        }
        guard stat(databasePath, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw .unavailable("there is no database file at \(databasePath)")
        }
        let partial = destination + ".partial"
        unlink(partial)
        do throws(StorageError) {
            let version = try copy(databasePath, to: partial)
            guard rename(partial, destination) == 0 else {
                throw .unavailable("cannot rename the copy to \(destination): \(Self.errno())")
            }
            stat(destination, &info)
            return Report(bytes: Int64(info.st_size), schemaVersion: version)
        } catch {
            unlink(partial)
            throw error
        }
    }

    /// The checked, synced copy at `path`; returns its schema version.
    private static func copy(_ databasePath: String, to path: String) throws(StorageError) -> Int64 {
        let source = try SQLiteConnection(path: databasePath, mode: .readOnly)
        try source.execute("PRAGMA busy_timeout = 5000")
        let copy = try SQLiteConnection(path: path, mode: .readWrite)
        try source.backUp(into: copy)
        let verdict = try copy.row("PRAGMA integrity_check") { $0.string(0) } ?? ""
        guard verdict == "ok" else { throw .corrupt("the copy failed its integrity check: \(verdict)") }
        let version = try copy.row("SELECT COALESCE(MAX(version), 0) FROM schema_migrations") { $0.int64(0) } ?? 0
        // A rollback journal instead of WAL: the copy is one self-contained file, no -wal beside it.
        _ = try copy.row("PRAGMA journal_mode = DELETE") { $0.string(0) }
        let descriptor = open(path, O_RDONLY)
        defer { if descriptor >= 0 { close(descriptor) } }
        guard descriptor >= 0, fsync(descriptor) == 0 else {
            throw .unavailable("cannot sync the copy \(path): \(Self.errno())")
        }
        return version
    }

    private static func errno() -> String { String(cString: strerror(Glibc.errno)) }
}
