import RPCCore
import Testing

@testable import EntitlementServer

/// `[server] trusted_proxies` and `client_address_header`.
struct TrustedProxiesConfigTests {
    private func server(_ keys: String) -> String {
        "[server]\nlisten = \"127.0.0.1:50051\"\n" + keys
    }

    @Test func noneTrustedByDefault() throws {
        let (config, directory) = try loadConfig(server(""))
        defer { directory.remove() }
        #expect(config.trustedProxies.networks.isEmpty)
        #expect(config.trustedProxies.header == .xForwardedFor)
    }

    @Test func listAndHeader() throws {
        let (config, directory) = try loadConfig(
            server("trusted_proxies = \"127.0.0.1, 10.0.0.0/8 ,fd00::/8\"\nclient_address_header = \"Forwarded\"\n"))
        defer { directory.remove() }
        #expect(config.trustedProxies.networks.map(\.description) == ["127.0.0.1", "10.0.0.0/8", "fd00::/8"])
        #expect(config.trustedProxies.header == .forwarded)
        #expect(config.trustedProxies.isTrusted(try #require(IPAddress("10.9.8.7"))))
    }

    @Test func refusalsNameTheKeyAndWhatIsWrong() {
        let cases: [(String, String, String)] = [
            ("trusted_proxies = \"10.1.2.3/8\"", "trusted_proxies", "\"10.1.2.3/8\" has bits set past its prefix; did you mean 10.0.0.0/8?"),
            ("trusted_proxies = \"proxy.internal\"", "trusted_proxies", "\"proxy.internal\" is not an IP address or ADDRESS/PREFIX block"),
            ("trusted_proxies = \"\"", "trusted_proxies", "an entry of the list is empty"),
            ("trusted_proxies = \"::1/200\"", "trusted_proxies", "the prefix of \"::1/200\" is not a number from 0 to 128"),
            ("trusted_proxies = 10", "trusted_proxies", "a string in double quotes"),
            ("trusted_proxies = \"::1\"\nclient_address_header = \"x-real-ip\"", "client_address_header",
             "expected \"x-forwarded-for\" or \"forwarded\""),
            ("client_address_header = \"forwarded\"", "client_address_header", "applies only with trusted_proxies"),
        ]
        for (keys, key, expected) in cases {
            let error = configError(server(keys + "\n"))
            #expect(error?.key == key, "\(keys): \(String(describing: error))")
            #expect(error?.description.contains(expected) == true, "\(keys): \(String(describing: error))")
        }
    }
}
