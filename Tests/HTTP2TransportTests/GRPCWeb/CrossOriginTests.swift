import Testing

@testable import HTTP2Transport

@Suite("Cross-origin calls: a page of this server is not another site")
struct CrossOriginTests {
    @Test func aPageOfThisServerCallsSameOrigin() {
        #expect(CrossOrigin.of(origin: "http://127.0.0.1:50051", authority: "127.0.0.1:50051", tls: false) == nil)
        #expect(CrossOrigin.of(origin: "https://Admin.Example.com", authority: "admin.example.com", tls: true) == nil)
    }

    @Test func anotherSchemeHostOrPortIsAnotherOrigin() {
        for (origin, authority, tls) in [
            ("https://127.0.0.1:50051", "127.0.0.1:50051", false), ("http://admin.example.com", "admin.example.com", true),
            ("http://127.0.0.1:50052", "127.0.0.1:50051", false), ("http://evil.example", "127.0.0.1:50051", false),
            ("http://127.0.0.1:50051.evil.example", "127.0.0.1:50051", false), ("null", "127.0.0.1:50051", false),
        ] {
            #expect(CrossOrigin.of(origin: origin, authority: authority, tls: tls) == origin, "\(origin) on \(authority)")
        }
    }

    @Test func withoutAnAuthorityEveryOriginIsAnother() {
        #expect(CrossOrigin.of(origin: "http://a", authority: nil, tls: false) == "http://a")
        #expect(CrossOrigin.of(origin: "http://a", authority: "", tls: false) == "http://a")
        #expect(CrossOrigin.of(origin: nil, authority: "a", tls: false) == nil)
    }
}
