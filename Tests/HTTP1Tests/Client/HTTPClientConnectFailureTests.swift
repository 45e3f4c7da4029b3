import Glibc
import Testing

@testable import HTTP1
@testable import PosixIO

/// A connection the HTTP/1.1 client cannot make is classified as the gRPC client's is, so entctl's HTTP posts
/// (`dev notify`, `dev play-notify`) suggest the same fix ("is the server running?") as its gRPC calls.
@Suite("HTTP client connect failures")
struct HTTPClientConnectFailureTests {
    /// A loopback port nothing listens on: bound, then released.
    private func closedPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(bound == 0)
        return Socket.localPort(fd)
    }

    private func failure(host: String, port: Int) async throws -> HTTPClientError {
        let client = try HTTPClient()
        defer { client.shutdown() }
        do {
            let response = try await client.send(
                HTTPClientRequest(method: "POST", scheme: .http, host: host, port: port, target: "/x"), timeout: .seconds(10))
            Issue.record("got \(response.status) from \(host):\(port)")
            return HTTPClientError(.invalidRequest, "unexpected answer")
        } catch {
            return error
        }
    }

    @Test("a refused connect says so, with the address, as the gRPC client does")
    func refused() async throws {
        let port = try closedPort()
        let error = try await failure(host: "127.0.0.1", port: port)
        #expect(error.code == .connectFailed)
        let failure = try #require(error.connectionFailure)
        #expect(failure.kind == .refused)
        #expect(failure == ClientConnectionFailure(connectErrno: ECONNREFUSED, address: "127.0.0.1:\(port)"))
        #expect(error.message == "cannot connect to 127.0.0.1:\(port): connection refused")
    }

    @Test("a host name that does not resolve")
    func unresolvable() async throws {
        let error = try await failure(host: "no-such-host.invalid", port: 80)
        #expect(error.code == .connectFailed)
        #expect(error.connectionFailure?.kind == .unresolvable)
        #expect(error.message == "cannot connect to no-such-host.invalid:80: cannot resolve the host name")
    }

    @Test("errors of other kinds carry no connection failure")
    func otherErrors() {
        #expect(HTTPClientError(.timedOut, "late").connectionFailure == nil)
    }
}
