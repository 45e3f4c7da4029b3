import HTTP1
import HTTP2Transport
import OutboundHTTP
import RPCCore
import TestSupport
import Testing

/// HTTPS against the project's own server with a certificate made for the test: trusted through the configured CA
/// file, refused without it, refused for another host name.
@Suite(.serialized) struct OutboundTLSTests {
    private func server(_ certificates: TestCertificates, host: String = "127.0.0.1") async throws -> HTTP2Server {
        var configuration = HTTP2ServerConfiguration()
        configuration.host = host
        configuration.port = 0
        configuration.eventLoopThreads = 1
        configuration.tls = .init(certificatePath: certificates.certificatePath, privateKeyPath: certificates.privateKeyPath)
        let router = HTTPRouter { routes in
            routes.register("GET", "/hello") { _ in .text(200, "over TLS\n") }
        }
        let server = try HTTP2Server(
            configuration: configuration, router: RPCRouter(), httpRouter: router,
            logger: Logger(label: "test", minimumLevel: .error))
        try server.start()
        return server
    }

    @Test func trustsTheConfiguredCertificateFile() async throws {
        let certificates = try TestCertificates()
        let server = try await server(certificates)
        defer { server.beginGracefulShutdown() }
        let client = try OutboundHTTPClient(configuration: .init(trustedCertificatesPath: certificates.certificatePath))
        for host in ["localhost", "127.0.0.1"] {
            let answer = try await client.send("GET", try #require(OutboundURL("https://\(host):\(server.localPort)/hello")), for: .webhook)
            #expect(answer.response.status == 200)
            #expect(answer.response.body == Array("over TLS\n".utf8))
        }
    }

    @Test func refusesACertificateNotTrustedAndDoesNotRetry() async throws {
        let certificates = try TestCertificates()
        let server = try await server(certificates)
        defer { server.beginGracefulShutdown() }
        let other = try TestCertificates()
        let client = try OutboundHTTPClient(configuration: .init(trustedCertificatesPath: other.certificatePath))
        let url = try #require(OutboundURL("https://localhost:\(server.localPort)/hello"))
        do throws(OutboundHTTPError) {
            _ = try await client.send("GET", url, for: .webhook)
            Issue.record("an untrusted certificate was accepted")
        } catch {
            #expect(error.code == .tlsFailed)
            #expect(error.attempts == 1)
            #expect(error.message.contains("certificate verify failed"))
        }
    }

    @Test func refusesACertificateForAnotherName() async throws {
        let certificates = try TestCertificates()
        // The certificate names localhost and 127.0.0.1, not this other loopback address.
        let server = try await server(certificates, host: "127.0.0.2")
        defer { server.beginGracefulShutdown() }
        let client = try OutboundHTTPClient(configuration: .init(trustedCertificatesPath: certificates.certificatePath))
        await #expect(throws: OutboundHTTPError(code: .tlsFailed, attempts: 0, message: "")) {
            try await client.send("GET", try #require(OutboundURL("https://127.0.0.2:\(server.localPort)/hello")), for: .webhook)
        }
    }

    @Test func anUnreadableCertificateFileIsAConfigurationError() {
        #expect(throws: OutboundHTTPError(code: .configuration, attempts: 0, message: "")) {
            try OutboundHTTPClient(configuration: .init(trustedCertificatesPath: "/nonexistent/ca.pem"))
        }
    }
}
