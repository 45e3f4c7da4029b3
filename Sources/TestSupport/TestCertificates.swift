import Foundation

/// A self-signed certificate for 127.0.0.1 and localhost, minted with the `openssl` command at test time.
public struct TestCertificates: TestFileDirectory, Sendable {
    public let directory: String
    public var certificatePath: String { directory + "/cert.pem" }
    public var privateKeyPath: String { directory + "/key.pem" }

    public init() throws {
        directory = try Self.makeDirectory("tls")
        let status = try ProcessLaunch.runBlocking(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                "-keyout", directory + "/key.pem", "-out", directory + "/cert.pem",
            ],
            directory: directory)
        guard status == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "openssl req failed"])
        }
    }
}
