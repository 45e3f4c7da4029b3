#if canImport(Glibc)
public import Glibc
#elseif canImport(Darwin)
public import Darwin
#endif

/// The project's file access, on plain POSIX calls: the one way files are read (configuration, tenants, root
/// certificates, the local signing CA, standard input) and the few other operations configuration loading needs.
public enum FileSystem {
    public enum Kind: Sendable { case missing, regularFile, directory, other }

    public static func errnoDescription(_ code: Int32 = errno) -> String {
        String(cString: strerror(code))
    }

    public static func kind(of path: String) -> Kind {
        var info = stat()
        guard stat(path, &info) == 0 else { return .missing }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .regularFile
        case S_IFDIR: return .directory
        default: return .other
        }
    }

    public static func isReadable(_ path: String) -> Bool { access(path, R_OK) == 0 }
    public static func isWritable(_ path: String) -> Bool { access(path, W_OK) == 0 }

    /// The whole file as bytes, or the path and the reason it cannot be read.
    public static func readFile(_ path: String) -> Result<[UInt8], FileSystemError> {
        if kind(of: path) == .directory { return .failure(FileSystemError(path: path, reason: "it is a directory")) }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(FileSystemError(path: path, reason: errnoDescription())) }
        defer { close(descriptor) }
        return readAll(descriptor, name: path)
    }

    /// Everything left to read from `descriptor` (standard input, say), which stays open; `name` is what errors call
    /// it.
    public static func readAll(_ descriptor: Int32, name: String) -> Result<[UInt8], FileSystemError> {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(FileSystemError(path: name, reason: errnoDescription()))
            }
            if count == 0 { return .success(bytes) }
            bytes.append(contentsOf: buffer[0..<count])
        }
    }

    /// The absolute, symlink-free form of an existing path.
    public static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    public static func currentDirectory() -> String {
        guard let cwd = getcwd(nil, 0) else { return "." }
        defer { free(cwd) }
        return String(cString: cwd)
    }

    /// The directory part of a path: `a/b/c.toml` → `a/b`, `c.toml` → `.`, `/c.toml` → `/`.
    public static func directoryName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }

    /// `path` made absolute against `base` (itself absolute) and normalised lexically (`.` and `..` removed).
    public static func resolve(_ path: String, against base: String) -> String {
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

    /// The names of the entries of a directory (`.` and `..` left out), sorted.
    public static func entryNames(of directory: String) -> Result<[String], FileSystemError> {
        guard let handle = opendir(directory) else {
            return .failure(FileSystemError(path: directory, reason: errnoDescription()))
        }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return .success(names.sorted())
    }

    /// Creates `path` and its missing parents, like `mkdir -p`.
    public static func createDirectories(_ path: String) -> Result<Void, FileSystemError> {
        switch kind(of: path) {
        case .directory: return .success(())
        case .regularFile, .other: return .failure(FileSystemError(path: path, reason: "\"\(path)\" exists and is not a directory"))
        case .missing: break
        }
        let parent = directoryName(path)
        if parent != path {
            if case .failure(let error) = createDirectories(parent) { return .failure(error) }
        }
        if mkdir(path, 0o755) != 0 && errno != EEXIST {
            return .failure(FileSystemError(path: path, reason: "cannot create \"\(path)\": \(errnoDescription())"))
        }
        return kind(of: path) == .directory
            ? .success(()) : .failure(FileSystemError(path: path, reason: "\"\(path)\" exists and is not a directory"))
    }
}

/// A failed file operation: the path (as given) and why, as `strerror` or the check that failed says it.
public struct FileSystemError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }
}
