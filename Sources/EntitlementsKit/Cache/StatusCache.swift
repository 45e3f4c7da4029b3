public import Foundation

/// What the SDK keeps between runs: the last known status of each user, so the app starts with it (marked as
/// cached) instead of `unknown`, and who the user is (the signed-in ID or the generated anonymous one, and each
/// user's app account token).
public protocol StatusCache: Sendable {
    func loadStatus(appUserID: String) -> StatusSnapshot?
    func saveStatus(_ snapshot: StatusSnapshot) throws
    func loadIdentity() -> CachedIdentity?
    func saveIdentity(_ identity: CachedIdentity) throws
}

/// Who the app's user is, as the SDK last knew it.
public struct CachedIdentity: Sendable, Hashable, Codable {
    /// The ID the SDK speaks for: the app's own account ID after `identify`, or the anonymous ID generated on this
    /// device (`$anon:` + UUID), which the next `identify` merges into the account.
    public var appUserID: String
    /// StoreKit's `appAccountToken` for each user the server gave one for.
    public var appAccountTokens: [String: UUID]

    public init(appUserID: String, appAccountTokens: [String: UUID] = [:]) {
        self.appUserID = appUserID
        self.appAccountTokens = appAccountTokens
    }
}

/// One JSON file per user, and one for the identity, in a directory (the app's Application Support directory, say),
/// each written atomically. A file that cannot be read is as good as none: the server's next answer replaces it.
public struct FileStatusCache: StatusCache {
    public let directory: URL

    public init(directory: URL) {
        self.directory = directory
    }

    /// `EntitlementsKit` in the app's Application Support directory.
    public static func applicationSupport() throws -> FileStatusCache {
        let base = try FileManager.default.url(
            for: .applicationSupportDirectory, in: .userDomainMask, appropriateFor: nil, create: true)
        return FileStatusCache(directory: base.appendingPathComponent("EntitlementsKit", isDirectory: true))
    }

    public func loadStatus(appUserID: String) -> StatusSnapshot? {
        guard var snapshot = read(StatusSnapshot.self, from: statusFile(for: appUserID)), snapshot.appUserID == appUserID
        else { return nil }
        snapshot.origin = .cache
        return snapshot
    }

    public func saveStatus(_ snapshot: StatusSnapshot) throws {
        try write(snapshot, to: statusFile(for: snapshot.appUserID))
    }

    public func loadIdentity() -> CachedIdentity? {
        read(CachedIdentity.self, from: directory.appendingPathComponent("identity.json"))
    }

    public func saveIdentity(_ identity: CachedIdentity) throws {
        try write(identity, to: directory.appendingPathComponent("identity.json"))
    }

    /// A file name any app user ID can have: its UTF-8 bytes in hex (IDs are at most 256 bytes).
    func statusFile(for appUserID: String) -> URL {
        let digits = Array("0123456789abcdef")
        let name = String(appUserID.utf8.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
        return directory.appendingPathComponent("status-\(name).json")
    }

    private func read<Value: Decodable>(_ type: Value.Type, from file: URL) -> Value? {
        guard let data = try? Data(contentsOf: file) else { return nil }
        return try? JSONDecoder().decode(type, from: data)
    }

    private func write(_ value: some Encodable, to file: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(value).write(to: file, options: .atomic)
    }
}

/// Keeps everything in memory only (tests, or an app that wants no file).
public final class MemoryStatusCache: StatusCache, @unchecked Sendable {
    private let lock = NSLock()
    private var snapshots: [String: StatusSnapshot] = [:]
    private var identity: CachedIdentity?

    public init() {}

    public func loadStatus(appUserID: String) -> StatusSnapshot? {
        lock.withLock { snapshots[appUserID] }.map { var cached = $0; cached.origin = .cache; return cached }
    }

    public func saveStatus(_ snapshot: StatusSnapshot) throws {
        lock.withLock { snapshots[snapshot.appUserID] = snapshot }
    }

    public func loadIdentity() -> CachedIdentity? { lock.withLock { identity } }

    public func saveIdentity(_ identity: CachedIdentity) throws { lock.withLock { self.identity = identity } }
}
