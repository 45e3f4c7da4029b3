#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address, as 128 bits: IPv4 as IPv4-mapped IPv6 (`::ffff:a.b.c.d`), so a client seen as
/// `192.0.2.1` by an IPv4 socket and as `::ffff:192.0.2.1` by a dual-stack one is one address.
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// The first and last 64 bits, in network order (the most significant bit is the address's first).
    public let high: UInt64
    public let low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The longest address text read: an IPv6 address with an IPv4 tail (INET6_ADDRSTRLEN without its NUL).
    static let maxTextBytes = 45

    /// An IPv4 dotted quad (`192.0.2.1`) or IPv6 text (`2001:db8::1`, `::ffff:192.0.2.1`), without brackets, port or
    /// zone; nil for anything else.
    public init?(_ text: some StringProtocol) {
        // Only these characters, and few of them: a NUL would end the C string early ("1.2.3.4\0junk"), and the
        // bound keeps header and configuration input from reaching the C parser at any length.
        let utf8 = text.utf8
        guard !utf8.isEmpty, utf8.count <= Self.maxTextBytes, utf8.allSatisfy(Self.isAddressByte) else { return nil }
        var bytes = [UInt8](repeating: 0, count: 16)
        let parsed = String(text).withCString { pointer in
            bytes.withUnsafeMutableBytes { buffer in
                if utf8.contains(UInt8(ascii: ":")) {
                    return inet_pton(AF_INET6, pointer, buffer.baseAddress) == 1
                }
                // An IPv4 address goes in the last four bytes, behind the mapped prefix.
                guard inet_pton(AF_INET, pointer, buffer.baseAddress! + 12) == 1 else { return false }
                buffer[10] = 0xFF
                buffer[11] = 0xFF
                return true
            }
        }
        guard parsed else { return nil }
        self.init(bytes: bytes)
    }

    /// The address of a socket peer as the transport writes it (`192.0.2.1:5555`, `[2001:db8::1]:5555`,
    /// `[fe80::1%eth0]:5555`); nil for anything else (an in-process call's `in-process`).
    public init?(peer: String) {
        if peer.hasPrefix("[") {
            guard let close = peer.firstIndex(of: "]") else { return nil }
            let host = peer[peer.index(after: peer.startIndex)..<close]
            // A link-local address's zone names our interface, not the client.
            self.init(host.prefix { $0 != "%" })
        } else {
            guard let colon = peer.lastIndex(of: ":") else { return nil }
            self.init(peer[..<colon])
        }
    }

    /// 16 bytes in network order.
    init(bytes: [UInt8]) {
        precondition(bytes.count == 16)
        func word(_ offset: Int) -> UInt64 {
            bytes[offset..<offset + 8].reduce(0) { $0 << 8 | UInt64($1) }
        }
        self.init(high: word(0), low: word(8))
    }

    /// 16 bytes in network order.
    public var bytes: [UInt8] {
        (0..<16).map { UInt8(truncatingIfNeeded: ($0 < 8 ? high : low) >> (56 - 8 * ($0 % 8))) }
    }

    /// Whether it is an IPv4 address (kept IPv4-mapped).
    public var isIPv4: Bool { high == 0 && low >> 32 == 0xFFFF }

    /// The address with all but its first `prefixLength` bits (0-128) cleared.
    public func masked(toPrefix prefixLength: Int) -> IPAddress {
        let length = min(max(prefixLength, 0), 128)
        // A shift by 64 or more is 0 in Swift's smart shifts, so each mask is exact at every length.
        let highMask: UInt64 = length >= 64 ? .max : ~(UInt64.max >> length)
        let lowMask: UInt64 = length <= 64 ? 0 : ~(UInt64.max >> (length - 64))
        return IPAddress(high: high & highMask, low: low & lowMask)
    }

    /// Dotted quad for IPv4, RFC 5952 text for IPv6.
    public var description: String {
        if isIPv4 {
            return (0..<4).map { String((low >> (24 - 8 * $0)) & 0xFF) }.joined(separator: ".")
        }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        _ = bytes.withUnsafeBytes { inet_ntop(AF_INET6, $0.baseAddress, &text, socklen_t(text.count)) }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func isAddressByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
            UInt8(ascii: "A")...UInt8(ascii: "F"), UInt8(ascii: "."), UInt8(ascii: ":"):
            true
        default: false
        }
    }
}
