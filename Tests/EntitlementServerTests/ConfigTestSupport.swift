import Foundation
import TestSupport
import Testing

@testable import EntitlementServer

/// A fresh directory under the system's temporary directory, removed by `remove()`.
struct TemporaryDirectory {
    let path: String

    init() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("entitlementd-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        path = url.path
    }

    /// Writes `contents` to `name` (relative to the directory, parents created) and returns the full path.
    @discardableResult
    func write(_ name: String, _ contents: String) throws -> String {
        let full = path + "/" + name
        let parent = (full as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        try contents.write(toFile: full, atomically: true, encoding: .utf8)
        return full
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// The root of the package.
let packageRoot = RepositoryFiles.root.path

/// A minimal valid configuration with `extra` appended.
func configText(_ extra: String = "") -> String {
    """
    [server]
    listen = "127.0.0.1:50051"

    """ + extra
}

/// Writes `text` as `entitlementd.toml` in a fresh directory and loads it.
func loadConfig(_ text: String, files: [String: String] = [:]) throws -> (ServerConfig, TemporaryDirectory) {
    let directory = try TemporaryDirectory()
    for (name, contents) in files { try directory.write(name, contents) }
    let path = try directory.write("entitlementd.toml", text)
    do {
        return (try ServerConfig.load(path: path), directory)
    } catch {
        directory.remove()
        throw error
    }
}

/// Loads `text` expecting exactly one ``ConfigError``; the directory is removed afterwards.
func configError(_ text: String, files: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation)
    -> ConfigError?
{
    let errors = configErrors(text, files: files, sourceLocation: sourceLocation)
    #expect(errors.count <= 1, "\(errors)", sourceLocation: sourceLocation)
    return errors.first
}

/// Loads `text` expecting ``ConfigErrors``; the directory is removed afterwards.
func configErrors(_ text: String, files: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation)
    -> [ConfigError]
{
    do {
        let (_, directory) = try loadConfig(text, files: files)
        directory.remove()
        Issue.record("expected a configuration error", sourceLocation: sourceLocation)
        return []
    } catch let error as ConfigErrors {
        return error.errors
    } catch {
        Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
        return []
    }
}

/// Checks the code and that the message starts `entitlementd.toml:LINE: [section] key: ` (or the parts that apply).
func expectConfigError(
    _ text: String,
    files: [String: String] = [:],
    code: ConfigError.Code,
    line: Int?,
    section: String?,
    key: String?,
    contains fragments: [String] = [],
    sourceLocation: SourceLocation = #_sourceLocation
) {
    guard let error = configError(text, files: files, sourceLocation: sourceLocation) else { return }
    #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    #expect(error.line == line, "\(error)", sourceLocation: sourceLocation)
    #expect(error.section == section, "\(error)", sourceLocation: sourceLocation)
    #expect(error.key == key, "\(error)", sourceLocation: sourceLocation)
    #expect(error.file.hasSuffix("/entitlementd.toml"), sourceLocation: sourceLocation)

    var prefix = error.file
    if let line { prefix += ":\(line)" }
    prefix += ": "
    if let section, let key {
        prefix += "[\(section)] \(key): "
    } else if let section {
        prefix += "[\(section)]: "
    } else if let key {
        prefix += "\(key): "
    }
    #expect(error.description.hasPrefix(prefix), "\(error) should start with \(prefix)", sourceLocation: sourceLocation)
    for fragment in fragments {
        #expect(error.description.contains(fragment), "\(error) should mention \(fragment)", sourceLocation: sourceLocation)
    }
}
