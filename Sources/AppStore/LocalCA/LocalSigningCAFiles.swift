import Crypto
import FileAccess
import Foundation

/// A ``LocalSigningCA`` on disk: `root.pem`, `intermediate.pem`, `leaf.pem` and `leaf-key.pem` (mode 0600) in one
/// directory. Tenants trust `root.pem`.
extension LocalSigningCA {
    public enum FileName {
        public static let root = "root.pem"
        public static let intermediate = "intermediate.pem"
        public static let leaf = "leaf.pem"
        public static let leafKey = "leaf-key.pem"
    }

    public struct FileError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Writes the four files, creating `directory` when needed; existing files are replaced.
    public func save(to directory: String) throws(FileError) {
        let manager = FileManager.default
        let files = [
            (FileName.root, root.pemEncoded, 0o644), (FileName.intermediate, intermediate.pemEncoded, 0o644),
            (FileName.leaf, leaf.pemEncoded, 0o644), (FileName.leafKey, leafKey.pemRepresentation, 0o600),
        ]
        do {
            try manager.createDirectory(atPath: directory, withIntermediateDirectories: true)
            for (name, text, mode) in files {
                let path = (directory as NSString).appendingPathComponent(name)
                try? manager.removeItem(atPath: path)
                guard manager.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: mode])
                else { throw FileError(description: "cannot write \(path)") }
            }
        } catch let error as FileError {
            throw error
        } catch {
            throw FileError(description: "cannot save the local signing CA in \(directory): \(error)")
        }
    }

    /// Reads a CA written by ``save(to:)``; the leaf key must belong to the leaf certificate.
    public static func load(from directory: String) throws(FileError) -> LocalSigningCA {
        func read(_ name: String) throws(FileError) -> String {
            let path = (directory as NSString).appendingPathComponent(name)
            switch FileSystem.readFile(path) {
            case .success(let bytes): return String(decoding: bytes, as: UTF8.self)
            case .failure(let error): throw FileError(description: "cannot read \(path): \(error.reason) (create the CA first)")
            }
        }
        func parse<T>(_ name: String, _ make: (String) throws(CryptoError) -> T) throws(FileError) -> T {
            let text = try read(name)
            do {
                return try make(text)
            } catch {
                throw FileError(description: "\((directory as NSString).appendingPathComponent(name)): \(error.message)")
            }
        }
        let ca = LocalSigningCA(
            root: try parse(FileName.root) { text throws(CryptoError) in try Certificate(pemEncoded: text) },
            intermediate: try parse(FileName.intermediate) { text throws(CryptoError) in try Certificate(pemEncoded: text) },
            leaf: try parse(FileName.leaf) { text throws(CryptoError) in try Certificate(pemEncoded: text) },
            leafKey: try parse(FileName.leafKey) { text throws(CryptoError) in try P256.PrivateKey(pemRepresentation: text) })
        guard ca.leaf.p256PublicKey == ca.leafKey.publicKey else {
            throw FileError(description: "\(directory): \(FileName.leafKey) is not the key of \(FileName.leaf)")
        }
        return ca
    }
}
