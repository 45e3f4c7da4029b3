#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few file-system operations configuration loading needs, on plain POSIX calls.
enum FileSystem {
    enum Kind { case missing, regularFile, directory, other }

    static func errnoDescription(_ code: Int32 = errno) -> String {
        String(cString: strerror(code))
    }

    static func kind(of path: String) -> Kind {
        var info = stat()
        guard stat(path, &info) == 0 else { return .missing }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .regularFile
        case S_IFDIR: return .directory
        default: return .other
        }
    }

    static func isReadable(_ path: String) -> Bool { access(path, R_OK) == 0 }
    static func isWritable(_ path: String) -> Bool { access(path, W_OK) == 0 }

    /// The whole file as bytes, or the reason it cannot be read.
    static func readFile(_ path: String) -> Result<[UInt8], FileSystemError> {
        if kind(of: path) == .directory { return .failure(FileSystemError(reason: "it is a directory")) }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(FileSystemError(reason: errnoDescription())) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(FileSystemError(reason: errnoDescription()))
            }
            if count == 0 { return .success(bytes) }
            bytes.append(contentsOf: buffer[0..<count])
        }
    }

    /// The absolute, symlink-free form of an existing path.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    static func currentDirectory() -> String {
        guard let cwd = getcwd(nil, 0) else { return "." }
        defer { free(cwd) }
        return String(cString: cwd)
    }

    /// The directory part of a path: `a/b/c.toml` → `a/b`, `c.toml` → `.`, `/c.toml` → `/`.
    static func directoryName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }

    /// `path` made absolute against `base` (itself absolute) and normalised lexically (`.` and `..` removed).
    static func resolve(_ path: String, against base: String) -> String {
        let joined = path.hasPrefix("/") ? path : base + "/" + path
        var components: [Substring] = []
        for component in joined.split(separator: "/", omittingEmptySubsequences: true) {
            switch component {
            case ".": continue
            case "..": if !components.isEmpty { components.removeLast() }
            default: components.append(component)
            }
        }
        return "/" + components.joined(separator: "/")
    }

    /// Creates `path` and its missing parents, like `mkdir -p`.
    static func createDirectories(_ path: String) -> Result<Void, FileSystemError> {
        switch kind(of: path) {
        case .directory: return .success(())
        case .regularFile, .other: return .failure(FileSystemError(reason: "\"\(path)\" exists and is not a directory"))
        case .missing: break
        }
        let parent = directoryName(path)
        if parent != path {
            if case .failure(let error) = createDirectories(parent) { return .failure(error) }
        }
        if mkdir(path, 0o755) != 0 && errno != EEXIST {
            return .failure(FileSystemError(reason: "cannot create \"\(path)\": \(errnoDescription())"))
        }
        return kind(of: path) == .directory
            ? .success(()) : .failure(FileSystemError(reason: "\"\(path)\" exists and is not a directory"))
    }
}

struct FileSystemError: Error, Sendable {
    var reason: String
}
