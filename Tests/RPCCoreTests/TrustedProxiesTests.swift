import RPCCore
import Testing

@Suite struct TrustedProxiesTests {
    private let proxies = TrustedProxies(networks: try! IPNetwork.parseList("127.0.0.1, 10.0.0.0/8, fd00::/8").get())

    private func client(
        _ proxies: TrustedProxies, peer: String = "10.0.0.5:40000", _ headers: [(String, String)]
    ) -> String? {
        proxies.clientAddress(peer: peer, metadata: Metadata(headers))?.description
    }

    private func forwarded(_ headers: [(String, String)], peer: String = "10.0.0.5:40000") -> String? {
        var byForwarded = proxies
        byForwarded.header = .forwarded
        return client(byForwarded, peer: peer, headers)
    }

    @Test func anUntrustedPeerIsTheClientWhateverItSends() {
        let spoofed = [("x-forwarded-for", "203.0.113.9"), ("forwarded", "for=203.0.113.9")]
        #expect(client(proxies, peer: "198.51.100.7:5000", spoofed) == "198.51.100.7")
        #expect(forwarded(spoofed, peer: "198.51.100.7:5000") == "198.51.100.7")
        #expect(client(TrustedProxies(), peer: "127.0.0.1:5000", spoofed) == "127.0.0.1")
        #expect(client(proxies, peer: "[2001:db8::7]:5000", spoofed) == "2001:db8::7")
    }

    @Test func theRightMostAddressThatIsNotATrustedProxy() {
        // The client wrote the first two itself; the proxies appended the rest.
        let chain = [("x-forwarded-for", "1.1.1.1, 10.0.0.9, 203.0.113.9, 10.0.0.7")]
        #expect(client(proxies, chain) == "203.0.113.9")
        // Several field lines are one list, in order.
        #expect(client(proxies, [("x-forwarded-for", "1.1.1.1, 203.0.113.9"), ("x-forwarded-for", "10.0.0.7")]) == "203.0.113.9")
        // A dual-stack socket's mapped peer is the same trusted proxy.
        #expect(client(proxies, peer: "[::ffff:127.0.0.1]:5000", [("x-forwarded-for", "203.0.113.9")]) == "203.0.113.9")
        // Ports, brackets and spaces as proxies write them; empty list elements are ignored.
        #expect(client(proxies, [("x-forwarded-for", "203.0.113.9:4711 , ,")]) == "203.0.113.9")
        #expect(client(proxies, [("x-forwarded-for", "[2001:db8::1]:4711")]) == "2001:db8::1")
        #expect(client(proxies, [("x-forwarded-for", "2001:db8::1")]) == "2001:db8::1")
    }

    @Test func whenNothingFurtherCanBeCheckedTheLastTrustedHopIsTheClient() {
        // No header: the proxy itself.
        #expect(client(proxies, []) == "10.0.0.5")
        // Every hop a trusted proxy: the left-most.
        #expect(client(proxies, [("x-forwarded-for", "10.0.0.1, 10.0.0.2")]) == "10.0.0.1")
        // An unreadable hop: what the proxy to its right saw cannot be checked further.
        #expect(client(proxies, [("x-forwarded-for", "203.0.113.9, unknown, 10.0.0.2")]) == "10.0.0.2")
        #expect(client(proxies, [("x-forwarded-for", "garbage")]) == "10.0.0.5")
        #expect(client(proxies, [("x-forwarded-for", "1.2.3.4:99999")]) == "10.0.0.5")
    }

    @Test func forwardedForParameters() {
        #expect(forwarded([("forwarded", "for=192.0.2.60;proto=http;by=203.0.113.43")]) == "192.0.2.60")
        #expect(forwarded([("forwarded", #"for="[2001:db8:cafe::17]:4711""#)]) == "2001:db8:cafe::17")
        #expect(forwarded([("forwarded", #"For="[2001:db8::1]""#)]) == "2001:db8::1")
        #expect(forwarded([("forwarded", #"for="192.0.2.43:47011""#)]) == "192.0.2.43")
        #expect(forwarded([("forwarded", "for=198.51.100.1, for=192.0.2.43;proto=https, for=10.0.0.3")]) == "192.0.2.43")
        // A quoted string's commas and semicolons are its own; escapes are undone.
        #expect(forwarded([("forwarded", #"for=192.0.2.43;ext="a,b;c\"d", for=10.0.0.3"#)]) == "192.0.2.43")
        #expect(forwarded([("forwarded", #"for=198.51.100.1"#), ("forwarded", #"proto=https;for="192.0.2.43""#)]) == "192.0.2.43")
        // `unknown`, an obfuscated name, or an element without `for`: stop at the proxy that wrote it.
        #expect(forwarded([("forwarded", "for=192.0.2.43, for=unknown")]) == "10.0.0.5")
        #expect(forwarded([("forwarded", "for=192.0.2.43, for=_hidden, for=10.0.0.3")]) == "10.0.0.3")
        #expect(forwarded([("forwarded", "for=192.0.2.43, proto=https")]) == "10.0.0.5")
        #expect(forwarded([("forwarded", #"for="[2001:db8::1"#)]) == "10.0.0.5")
    }

    @Test func onlyTheConfiguredHeaderIsRead() {
        // A proxy that appends to X-Forwarded-For passes a made-up Forwarded untouched, and the other way round.
        let both = [("forwarded", "for=198.51.100.66"), ("x-forwarded-for", "203.0.113.9")]
        #expect(client(proxies, both) == "203.0.113.9")
        #expect(forwarded(both) == "198.51.100.66")
        #expect(forwarded([("x-forwarded-for", "203.0.113.9")]) == "10.0.0.5")
    }

    @Test func aLongHeaderCostsOnlyItsLastHops() {
        // 100,000 made-up hops to the left of what the proxy appended: the answer is the proxy's, and only the last
        // 64 hops are kept along the way.
        let made = Array(repeating: "10.0.0.1", count: 100_000).joined(separator: ",")
        #expect(client(proxies, [("x-forwarded-for", made + ", 203.0.113.9")]) == "203.0.113.9")
        // More trusted hops than are kept: the left-most kept one.
        #expect(client(proxies, [("x-forwarded-for", "203.0.113.9," + made)]) == "10.0.0.1")
        let forwardedMade = Array(repeating: "for=10.0.0.1", count: 100_000).joined(separator: ",")
        #expect(forwarded([("forwarded", forwardedMade + ",for=203.0.113.9")]) == "203.0.113.9")
    }
}
