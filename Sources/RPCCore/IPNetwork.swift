/// A block of addresses, `ADDRESS/PREFIX` (CIDR) or one address; IPv4 blocks are kept in the IPv4-mapped space
/// (`10.0.0.0/8` is `::ffff:10.0.0.0/104`) like ``IPAddress``.
public struct IPNetwork: Hashable, Sendable, CustomStringConvertible {
    /// The first address; every bit past the prefix is 0.
    public let address: IPAddress
    /// Leading bits that must match, 0-128 in the IPv6 space.
    public let prefixLength: Int

    public func contains(_ other: IPAddress) -> Bool {
        other.masked(toPrefix: prefixLength) == address
    }

    /// As written in configuration: the prefix of an IPv4 block in IPv4 bits.
    public var description: String {
        if address.isIPv4 && prefixLength >= 96 {
            return prefixLength == 128 ? "\(address)" : "\(address)/\(prefixLength - 96)"
        }
        return prefixLength == 128 ? "\(address)" : "\(address)/\(prefixLength)"
    }

    /// `192.0.2.1`, `10.0.0.0/8`, `2001:db8::1` or `2001:db8::/32`; on failure, what is wrong, for an error message.
    public static func parse(_ text: String) -> Result<IPNetwork, IPNetworkError> {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(parts[0]) else {
            return .failure(IPNetworkError(reason: "\"\(text)\" is not an IP address or ADDRESS/PREFIX block"))
        }
        let bits = address.isIPv4 && !parts[0].contains(":") ? 32 : 128
        var length = bits
        if parts.count == 2 {
            guard parts[1].utf8.count <= 3, parts[1].allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(parts[1]),
                value <= bits
            else {
                return .failure(IPNetworkError(reason: "the prefix of \"\(text)\" is not a number from 0 to \(bits)"))
            }
            length = value
        }
        let prefixLength = length + (128 - bits)
        let network = IPNetwork(address: address.masked(toPrefix: prefixLength), prefixLength: prefixLength)
        // A block written with host bits set is most likely a typo for another block: say which one it would be.
        guard network.address == address else {
            return .failure(IPNetworkError(reason: "\"\(text)\" has bits set past its prefix; did you mean \(network)?"))
        }
        return .success(network)
    }

    /// A comma-separated list of blocks (spaces around entries allowed), as a configuration gives it.
    public static func parseList(_ text: String) -> Result<[IPNetwork], IPNetworkError> {
        var networks: [IPNetwork] = []
        for entry in text.split(separator: ",", omittingEmptySubsequences: false) {
            let trimmed = entry.trimmingSpaces
            guard !trimmed.isEmpty else {
                return .failure(IPNetworkError(reason: "an entry of the list is empty (\"\(text)\")"))
            }
            switch parse(String(trimmed)) {
            case .success(let network): networks.append(network)
            case .failure(let error): return .failure(error)
            }
        }
        return .success(networks)
    }
}

/// Why an address block was rejected.
public struct IPNetworkError: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: String
    public var description: String { reason }
}

extension Substring {
    /// Without leading and trailing spaces and tabs (HTTP's optional white space).
    public var trimmingSpaces: Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
