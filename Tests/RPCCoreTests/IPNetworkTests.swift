import RPCCore
import Testing

@Suite struct IPNetworkTests {
    private func network(_ text: String) throws -> IPNetwork {
        try IPNetwork.parse(text).get()
    }

    private func reason(_ text: String) -> String? {
        guard case .failure(let error) = IPNetwork.parse(text) else { return nil }
        return error.reason
    }

    @Test func blocksAndSingleAddresses() throws {
        let ten = try network("10.0.0.0/8")
        #expect(ten.prefixLength == 104)
        #expect(ten.contains(try #require(IPAddress("10.255.1.2"))))
        #expect(ten.contains(try #require(IPAddress("::ffff:10.0.0.1"))))
        #expect(!ten.contains(try #require(IPAddress("11.0.0.0"))))
        #expect(!ten.contains(try #require(IPAddress("a00::"))))
        #expect(ten.description == "10.0.0.0/8")

        let one = try network("192.0.2.7")
        #expect(one.prefixLength == 128 && one.description == "192.0.2.7")
        #expect(one.contains(try #require(IPAddress("192.0.2.7"))))
        #expect(!one.contains(try #require(IPAddress("192.0.2.8"))))

        let v6 = try network("2001:db8::/32")
        #expect(v6.contains(try #require(IPAddress("2001:db8:ffff::1"))))
        #expect(!v6.contains(try #require(IPAddress("2001:db9::"))))
        #expect(v6.description == "2001:db8::/32")
        // Every IPv4 address, written in the IPv6 space.
        #expect(try network("::ffff:0.0.0.0/96").contains(try #require(IPAddress("203.0.113.9"))))
        #expect(try network("0.0.0.0/0").contains(try #require(IPAddress("203.0.113.9"))))
        #expect(!(try network("0.0.0.0/0")).contains(try #require(IPAddress("2001:db8::1"))))
    }

    @Test func refusalsSayWhatIsWrong() {
        #expect(reason("10.0.0.0/33") == "the prefix of \"10.0.0.0/33\" is not a number from 0 to 32")
        #expect(reason("2001:db8::/129") == "the prefix of \"2001:db8::/129\" is not a number from 0 to 128")
        #expect(reason("10.0.0.0/") == "the prefix of \"10.0.0.0/\" is not a number from 0 to 32")
        #expect(reason("10.0.0.0/-1") == "the prefix of \"10.0.0.0/-1\" is not a number from 0 to 32")
        #expect(reason("10.0.0.0/+8") == "the prefix of \"10.0.0.0/+8\" is not a number from 0 to 32")
        #expect(reason("10.0.0.0/99999999999999999999") != nil)
        #expect(reason("proxy.example") == "\"proxy.example\" is not an IP address or ADDRESS/PREFIX block")
        #expect(reason("10.1.2.3/8") == "\"10.1.2.3/8\" has bits set past its prefix; did you mean 10.0.0.0/8?")
        #expect(reason("2001:db8::1/64") == "\"2001:db8::1/64\" has bits set past its prefix; did you mean 2001:db8::/64?")
    }

    @Test func lists() throws {
        let networks = try IPNetwork.parseList("127.0.0.1, 10.0.0.0/8,\tfd00::/8").get()
        #expect(networks.map(\.description) == ["127.0.0.1", "10.0.0.0/8", "fd00::/8"])
        guard case .failure(let empty) = IPNetwork.parseList("127.0.0.1,,10.0.0.0/8") else {
            Issue.record("an empty entry was accepted")
            return
        }
        #expect(empty.reason == "an entry of the list is empty (\"127.0.0.1,,10.0.0.0/8\")")
        #expect((try? IPNetwork.parseList("").get()) == nil)
        #expect((try? IPNetwork.parseList("127.0.0.1, nope").get()) == nil)
    }
}
