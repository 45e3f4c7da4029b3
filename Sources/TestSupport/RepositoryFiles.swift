public import Foundation

/// Files inside this repository, for tests that read them (`Config/`, `Protos/`, `Tests/Fixtures/`). Found from this
/// file's own path, so the tests work in any clone and never read outside the checkout.
public enum RepositoryFiles {
    /// The repository's root: this file is `Sources/TestSupport/RepositoryFiles.swift`.
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `relativePath` under the root, as a URL.
    public static func url(_ relativePath: String) -> URL { root.appendingPathComponent(relativePath) }

    /// `relativePath` under the root, as a file system path.
    public static func path(_ relativePath: String) -> String { url(relativePath).path }

    /// The contents of `relativePath` under the root.
    public static func data(_ relativePath: String) throws -> Data { try Data(contentsOf: url(relativePath)) }

    /// Apple's public test data (certificates, Xcode-signed samples): `Tests/Fixtures/apple/<relativePath>`.
    public static func apple(_ relativePath: String) throws -> Data { try data("Tests/Fixtures/apple/" + relativePath) }

    /// Google's JSON shapes as its API reference spells them (purchases, notifications, Pub/Sub pushes):
    /// `Tests/Fixtures/google/<relativePath>`.
    public static func google(_ relativePath: String) throws -> Data { try data("Tests/Fixtures/google/" + relativePath) }
}
