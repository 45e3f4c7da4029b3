public import Crypto
import Encodings
import FileAccess

/// A Google service-account JSON key file (`type: service_account`), as Play Console / Cloud IAM hands it out: the
/// account's email, its RSA private key, the key's ID and the token endpoint.
public struct ServiceAccountKey: Sendable {
    public static let maxFileBytes = 64 * 1024

    public let clientEmail: String
    public let privateKeyID: String
    public let privateKey: RSA.PrivateKey
    /// Where assertions are exchanged for access tokens (Google's is https://oauth2.googleapis.com/token).
    public let tokenURI: String

    /// Reads and checks the file; the error names the file and what is wrong, never the key itself.
    public init(contentsOf path: String) throws(GooglePlayAPIError) {
        switch FileSystem.readFile(path) {
        case .failure(let error):
            throw GooglePlayAPIError(.configuration, "cannot read the service-account key file: \(error)")
        case .success(let bytes) where bytes.count > Self.maxFileBytes:
            throw GooglePlayAPIError(.configuration, "'\(path)' is larger than a service-account key file can be")
        case .success(let bytes):
            try self.init(json: bytes, source: path)
        }
    }

    /// Whether the file at `path` is a stand-in with a key's shape, such as Config/play-service-account.example.json,
    /// rather than a key: its `private_key_id` is all zeros, which no key Google makes has.
    public static func isPlaceholder(contentsOf path: String) -> Bool {
        guard case .success(let bytes) = FileSystem.readFile(path), bytes.count <= maxFileBytes,
            let keyID = File.read(bytes)?.private_key_id
        else { return false }
        return isPlaceholder(keyID: keyID)
    }

    private static func isPlaceholder(keyID: String) -> Bool { !keyID.isEmpty && keyID.allSatisfy { $0 == "0" } }

    /// The fields of the key file read here (it has more).
    private struct File {
        var type: String?
        var client_email: String?
        var private_key_id: String?
        var private_key: String?
        var token_uri: String?

        /// nil when `bytes` is not a JSON object whose members read here are strings (or absent, or `null`).
        static func read(_ bytes: [UInt8]) -> File? {
            var file = File()
            let read: Void? = try? JSONReader.read(bytes) { reader throws(JSONReadError) in
                try reader.readObject { reader, key throws(JSONReadError) in
                    if key == "type" {
                        file.type = try reader.optionalString()
                    } else if key == "client_email" {
                        file.client_email = try reader.optionalString()
                    } else if key == "private_key_id" {
                        file.private_key_id = try reader.optionalString()
                    } else if key == "private_key" {
                        file.private_key = try reader.optionalString()
                    } else if key == "token_uri" {
                        file.token_uri = try reader.optionalString()
                    } else {
                        try reader.skipValue()
                    }
                }
            }
            return read == nil ? nil : file
        }
    }

    public init(json bytes: [UInt8], source: String = "<memory>") throws(GooglePlayAPIError) {
        guard let file = File.read(bytes) else {
            throw GooglePlayAPIError(.configuration, "'\(source)' is not a service-account JSON key file")
        }
        guard file.type == "service_account" else {
            throw GooglePlayAPIError(
                .configuration, "'\(source)' is not a service-account key (its \"type\" is not \"service_account\")")
        }
        guard let email = file.client_email, !email.isEmpty, let keyID = file.private_key_id, !keyID.isEmpty,
            let pem = file.private_key, let tokenURI = file.token_uri, !tokenURI.isEmpty
        else {
            throw GooglePlayAPIError(
                .configuration, "'\(source)' lacks client_email, private_key_id, private_key or token_uri")
        }
        do {
            privateKey = try RSA.PrivateKey(pemRepresentation: pem)
        } catch {
            guard !Self.isPlaceholder(keyID: keyID) else {
                throw GooglePlayAPIError(
                    .configuration,
                    "'\(source)' is a placeholder, not a key (its private_key_id is all zeros, like the example's): "
                        + "put your service account's JSON key there (Google Cloud console: IAM & Admin > Service "
                        + "accounts > Keys > Add key > JSON)")
            }
            throw GooglePlayAPIError(.configuration, "the private_key in '\(source)' is not a usable RSA key: \(error.message)")
        }
        clientEmail = email
        privateKeyID = keyID
        self.tokenURI = tokenURI
    }
}
