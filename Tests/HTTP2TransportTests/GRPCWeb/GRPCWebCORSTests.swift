import HTTP1
import Testing

@testable import HTTP2Transport

@Suite("gRPC-Web CORS")
struct GRPCWebCORSTests {
    struct Origins: GRPCWebCORSPolicy {
        let allowed: Set<String>
        var maxAgeSeconds: Int { 600 }
        func allowsOrigin(_ origin: String) -> Bool { allowed.contains(origin) }
    }

    static let policy = Origins(allowed: ["https://app.example.com"])

    @Test func preflightForAnAllowedOrigin() {
        let response = GRPCWebCORS.preflightResponse(origin: "https://app.example.com", policy: Self.policy)
        #expect(response.status == 204)
        #expect(response.body.isEmpty)
        #expect(response.headers["access-control-allow-origin"] == "https://app.example.com")
        #expect(response.headers["access-control-allow-credentials"] == "true")
        #expect(response.headers["vary"] == "Origin")
        #expect(response.headers["access-control-allow-methods"] == "GET, POST, OPTIONS")
        #expect(
            response.headers["access-control-allow-headers"]
                == GRPCWebCORS.allowedHeaders)
        #expect(response.headers["access-control-max-age"] == "600")
    }

    @Test(arguments: ["https://evil.example", "https://APP.example.com", "null"])
    func preflightForAnotherOriginIsForbiddenWithoutCORSHeaders(_ origin: String) {
        let response = GRPCWebCORS.preflightResponse(origin: origin, policy: Self.policy)
        #expect(response.status == 403)
        #expect(!response.headers.contains { $0.name.hasPrefix("access-control-") })
    }

    @Test func withoutAPolicyNoOriginIsAllowed() {
        #expect(GRPCWebCORS.preflightResponse(origin: "https://app.example.com", policy: nil).status == 403)
        #expect(GRPCWebCORS.responseHeaders(origin: "https://app.example.com", policy: nil).isEmpty)
    }

    @Test func actualResponsesExposeTheStatusHeaders() {
        let headers = GRPCWebCORS.responseHeaders(origin: "https://app.example.com", policy: Self.policy)
        #expect(headers.map(\.0) == [
            "access-control-allow-origin", "access-control-allow-credentials", "vary", "access-control-expose-headers",
        ])
        #expect(headers.last?.1 == "grpc-status, grpc-message, grpc-status-details-bin")
        #expect(GRPCWebCORS.responseHeaders(origin: nil, policy: Self.policy).isEmpty)
        #expect(GRPCWebCORS.responseHeaders(origin: "https://evil.example", policy: Self.policy).isEmpty)
    }

    @Test func preflightNeedsOptionsOriginAndRequestedMethod() {
        #expect(GRPCWebCORS.isPreflight(method: "OPTIONS", origin: "https://a.example", requestMethod: "POST"))
        #expect(!GRPCWebCORS.isPreflight(method: "OPTIONS", origin: nil, requestMethod: "POST"))
        #expect(!GRPCWebCORS.isPreflight(method: "OPTIONS", origin: "https://a.example", requestMethod: nil))
        #expect(!GRPCWebCORS.isPreflight(method: "POST", origin: "https://a.example", requestMethod: "POST"))
    }
}
