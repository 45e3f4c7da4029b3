/// The reverse proxies whose word about the client is taken (`[server] trusted_proxies`), and the header they write.
///
/// A call straight from any other address is that address's, whatever headers it sends: a client cannot choose
/// the address it is counted under. From a trusted proxy, the header's hops are read from the right (nearest first):
/// the client is the first address that is not itself a trusted proxy. Only one header is read, the one the
/// proxies write: a proxy that appends to `X-Forwarded-For` passes a `Forwarded` header the client made up
/// untouched, and the other way round.
public struct TrustedProxies: Sendable {
    public enum Header: String, Sendable {
        /// `X-Forwarded-For` (nginx's `$proxy_add_x_forwarded_for`, HAProxy's `option forwardfor`, cloud load
        /// balancers).
        case xForwardedFor = "x-forwarded-for"
        /// RFC 7239 `Forwarded`, its `for=` parameters.
        case forwarded
    }

    public var networks: [IPNetwork]
    public var header: Header

    /// No proxy is trusted: every call is its socket peer's.
    public init(networks: [IPNetwork] = [], header: Header = .xForwardedFor) {
        self.networks = networks
        self.header = header
    }

    public func isTrusted(_ address: IPAddress) -> Bool {
        networks.contains { $0.contains(address) }
    }

    /// The client a call is from: its socket peer, or behind trusted proxies the right-most hop of ``header`` that
    /// is not one of them. When a hop cannot be read (`unknown`, an obfuscated name) or every hop is a trusted
    /// proxy, the last trusted address reached: nothing further left can be checked. nil when the peer is not an
    /// IP address (an in-process call).
    public func clientAddress(peer: String, metadata: Metadata) -> IPAddress? {
        guard var client = IPAddress(peer: peer) else { return nil }
        guard isTrusted(client) else { return client }
        let values = metadata.compactMap { entry -> String? in
            guard entry.key == header.rawValue, case .string(let value) = entry.value else { return nil }
            return value
        }
        guard !values.isEmpty else { return client }
        let hops = header == .forwarded ? ForwardedHops.forwarded(values) : ForwardedHops.xForwardedFor(values)
        for hop in hops.reversed() {
            guard let hop else { return client }
            client = hop
            guard isTrusted(hop) else { return hop }
        }
        return client
    }
}
