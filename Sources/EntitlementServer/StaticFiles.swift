public import FileAccess
public import HTTP1

/// The files of one directory, read once at startup and served from memory (the demo web page): a request can only
/// name a file that was there, never a path, so nothing outside the directory is reachable. Flat (no subdirectories),
/// only the types a page needs, at most ``maxTotalBytes`` in all.
public struct StaticFiles: Sendable {
    static let maxTotalBytes = 4 * 1024 * 1024
    static let contentTypes = [
        "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8",
        "svg": "image/svg+xml", "png": "image/png", "ico": "image/x-icon", "json": "application/json",
    ]

    private let files: [String: (contentType: String, body: [UInt8])]
    /// Sent with every file (a page's security policy).
    private let headers: [(name: String, value: String)]

    /// Reads every file of a known type in `directory`; other entries are left out.
    public init(directory: String, headers: [(name: String, value: String)] = []) throws(FileSystemError) {
        self.headers = headers
        var files: [String: (String, [UInt8])] = [:]
        var total = 0
        for name in try FileSystem.entryNames(of: directory).get() {
            let path = directory + "/" + name
            guard !name.hasPrefix("."), FileSystem.kind(of: path) == .regularFile,
                let type = name.split(separator: ".").last.flatMap({ Self.contentTypes[String($0)] })
            else { continue }
            let body = try FileSystem.readFile(path).get()
            total += body.count
            guard total <= Self.maxTotalBytes else {
                throw FileSystemError(path: directory, reason: "its files are larger than \(Self.maxTotalBytes) bytes in all")
            }
            files[name] = (type, body)
        }
        self.files = files
    }

    /// The file `name` (`index.html` for an empty name), or 404.
    public func response(for name: String) -> HTTPResponse {
        guard let file = files[name.isEmpty ? "index.html" : name] else { return .text(404, "not found\n") }
        var headers = HTTPHeaders([("content-type", file.contentType)])
        // A page under development: always the file as it was read at startup, never a stale cached copy.
        headers.add(name: "cache-control", value: "no-cache")
        headers.add(name: "x-content-type-options", value: "nosniff")
        for (name, value) in self.headers { headers.add(name: name, value: value) }
        return HTTPResponse(status: 200, headers: headers, body: file.body)
    }
}
