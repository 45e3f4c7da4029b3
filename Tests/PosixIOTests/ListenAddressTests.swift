import Testing

import PosixIO

/// Which addresses count as this machine: entctl sends the public demo keys to those only.
@Suite("ListenAddress loopback")
struct ListenAddressTests {
    @Test("loopback addresses", arguments: [
        "127.0.0.1", "127.1.2.3", "127.255.255.255", "::1", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1", "localhost",
        "LocalHost", "localhost.",
    ])
    func loopback(host: String) {
        #expect(ListenAddress(host: host, port: 50051).isLoopback)
    }

    @Test("other addresses", arguments: [
        "128.0.0.1", "126.255.255.255", "10.0.0.1", "0.0.0.0", "::", "::2", "::ffff:10.0.0.1", "example.com",
        "localhost.example.com", "127.0.0.1.example.com",
    ])
    func notLoopback(host: String) {
        #expect(!ListenAddress(host: host, port: 50051).isLoopback)
    }

    @Test("a parsed address with brackets")
    func parsed() throws {
        #expect(try ListenAddress.parse("[::1]:50051").get().isLoopback)
        #expect(try !ListenAddress.parse("192.0.2.1:50051").get().isLoopback)
    }
}
