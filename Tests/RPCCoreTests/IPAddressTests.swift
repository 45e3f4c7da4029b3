import RPCCore
import Testing

@Suite struct IPAddressTests {
    @Test func ipv4IsKeptMappedSoBothSpellingsAreOneAddress() throws {
        let plain = try #require(IPAddress("192.0.2.1"))
        let mapped = try #require(IPAddress("::ffff:192.0.2.1"))
        #expect(plain == mapped)
        #expect(plain.isIPv4)
        #expect(plain.high == 0 && plain.low == 0x0000_FFFF_C000_0201)
        #expect(plain.description == "192.0.2.1")
        #expect(plain.bytes == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 192, 0, 2, 1])
    }

    @Test func ipv6() throws {
        let address = try #require(IPAddress("2001:DB8::1"))
        #expect(!address.isIPv4)
        #expect(address.high == 0x2001_0DB8_0000_0000 && address.low == 1)
        #expect(address.description == "2001:db8::1")
        #expect(IPAddress("::1")?.description == "::1")
    }

    @Test(arguments: [
        "", "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "1.2.3.4 ", " 1.2.3.4", "1.2.3.4\0junk", "[::1]", "::1%eth0",
        "2001:db8::1::2", "unknown", "_hidden", "1.2.3.4:80", String(repeating: "1", count: 46), "１.2.3.4",
    ])
    func refusesAnythingElse(_ text: String) {
        #expect(IPAddress(text) == nil)
    }

    @Test func peersAsTheTransportWritesThem() {
        #expect(IPAddress(peer: "192.0.2.1:5555") == IPAddress("192.0.2.1"))
        #expect(IPAddress(peer: "[2001:db8::1]:5555") == IPAddress("2001:db8::1"))
        #expect(IPAddress(peer: "[::ffff:127.0.0.1]:5555") == IPAddress("127.0.0.1"))
        #expect(IPAddress(peer: "[fe80::1%eth0]:5555") == IPAddress("fe80::1"))
        for peer in ["in-process", "unknown", "", "[::1", "ipv4:127.0.0.1:5555"] {
            #expect(IPAddress(peer: peer) == nil, "\(peer)")
        }
    }

    @Test func maskingKeepsExactlyThePrefix() throws {
        let address = try #require(IPAddress("2001:db8:aaaa:bbbb:cccc:dddd:eeee:ffff"))
        #expect(address.masked(toPrefix: 128) == address)
        #expect(address.masked(toPrefix: 64) == IPAddress("2001:db8:aaaa:bbbb::"))
        #expect(address.masked(toPrefix: 65) == IPAddress("2001:db8:aaaa:bbbb:8000::"))
        #expect(address.masked(toPrefix: 63) == IPAddress("2001:db8:aaaa:bbba::"))
        #expect(address.masked(toPrefix: 1) == IPAddress("::"))
        #expect(address.masked(toPrefix: 0) == IPAddress("::"))
        #expect(address.masked(toPrefix: -5) == IPAddress("::"))
        #expect(address.masked(toPrefix: 500) == address)
        #expect(IPAddress("10.1.2.3")?.masked(toPrefix: 104) == IPAddress("10.0.0.0"))
    }
}
