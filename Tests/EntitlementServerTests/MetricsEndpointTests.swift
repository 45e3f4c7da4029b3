import HTTP1
import Testing
import TestSupport

/// `/metrics` on the main port answers only this machine: the counters name every method and route, which is
/// nobody else's business unless `[metrics] listen` says so.
@Suite struct MetricsEndpointTests {
    func request(from peer: String) -> HTTPRequest {
        var request = HTTPRequest(method: "GET", path: "/metrics")
        request.peer = peer
        return request
    }

    @Test(arguments: ["127.0.0.1:40000", "127.5.6.7:1", "[::1]:40000", "[::ffff:127.0.0.1]:40000"])
    func loopbackClientsGetTheText(peer: String) async throws {
        let server = try EntitlementTestServer()
        defer { server.stop() }
        let response = await server.httpRouter.respond(to: request(from: peer))
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
        #expect(String(decoding: response.body, as: UTF8.self).contains("# TYPE grpc_server_handled_total counter"))
    }

    @Test(arguments: ["10.0.0.5:40000", "192.168.1.2:80", "[2001:db8::1]:443", "[::ffff:10.0.0.1]:1", "128.0.0.1:5", ""])
    func otherClientsAreRefused(peer: String) async throws {
        let server = try EntitlementTestServer()
        defer { server.stop() }
        let response = await server.httpRouter.respond(to: request(from: peer))
        #expect(response.status == 403)
        #expect(!String(decoding: response.body, as: UTF8.self).contains("grpc_server"))
    }
}
