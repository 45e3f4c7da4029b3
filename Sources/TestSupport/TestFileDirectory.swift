import Foundation

/// Test files in a fresh temporary directory of their own: `write` adds one (a broken one, say), `remove` deletes the
/// directory with all of them.
public protocol TestFileDirectory {
    var directory: String { get }
}

extension TestFileDirectory {
    /// A new, empty `entitlementd-<kind>-<UUID>` directory under the system's temporary one.
    static func makeDirectory(_ kind: String) throws -> String {
        let directory = NSTemporaryDirectory() + "entitlementd-\(kind)-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Writes `contents` to `name` in the directory and returns its path.
    @discardableResult
    public func write(_ name: String, _ contents: String) throws -> String {
        let path = directory + "/" + name
        try contents.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    public func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }
}
