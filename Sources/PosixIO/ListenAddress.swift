#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A server address, `HOST:PORT`, with IPv6 literals in brackets (`[::1]:50051`): where to listen or connect.
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    /// The host without brackets: an IPv4 literal, an IPv6 literal or a host name.
    public var host: String
    /// 0 asks the kernel for a free port.
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    public var isIPv6: Bool { host.contains(":") }

    /// Whether the host is this machine by definition: `localhost`, an IPv4 address in 127.0.0.0/8, or `::1` (also
    /// as an IPv4-mapped 127.x address). A host name that merely resolves to a loopback address does not count.
    public var isLoopback: Bool {
        let name = host.lowercased()
        if name == "localhost" || name == "localhost." { return true }
        var ipv4 = in_addr()
        if inet_pton(AF_INET, host, &ipv4) == 1 {
            return withUnsafeBytes(of: &ipv4) { $0[0] } == 127
        }
        var ipv6 = in6_addr()
        guard inet_pton(AF_INET6, host, &ipv6) == 1 else { return false }
        return withUnsafeBytes(of: &ipv6) { bytes in
            let loopback = bytes.prefix(15).allSatisfy { $0 == 0 } && bytes[15] == 1
            let mapped = bytes.prefix(10).allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF && bytes[12] == 127
            return loopback || mapped
        }
    }

    /// `HOST:PORT`, bracketing IPv6 literals.
    public var description: String { Self.format(host: host, port: port) }

    public static func format(host: String, port: Int) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Parses `HOST:PORT`; on failure `reason` says what is wrong, for an error message.
    public static func parse(_ text: String) -> Result<ListenAddress, ListenAddressError> {
        func fail(_ reason: String) -> Result<ListenAddress, ListenAddressError> {
            .failure(ListenAddressError(reason: reason))
        }
        let expected = "expected HOST:PORT such as 127.0.0.1:50051, 0.0.0.0:50051 or [::1]:50051"
        guard !text.isEmpty else { return fail("\(expected), got an empty string") }
        guard !text.contains(where: { $0 == " " || $0 == "\t" }) else {
            return fail("\(expected), got \"\(text)\" (no spaces allowed)")
        }

        let host: String
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else {
                return fail("\(expected), got \"\(text)\" (missing ] after the IPv6 address)")
            }
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            guard rest.first == ":" else {
                return fail("\(expected), got \"\(text)\" (missing :PORT after the bracketed address)")
            }
            portText = rest.dropFirst()
            guard isIPv6Literal(host) else {
                return fail("\"\(host)\" in \"\(text)\" is not a valid IPv6 address")
            }
        } else {
            let colons = text.filter { $0 == ":" }.count
            if colons > 1 {
                return fail("\(expected), got \"\(text)\" (put IPv6 addresses in brackets, e.g. [::1]:50051)")
            }
            guard colons == 1, let colon = text.lastIndex(of: ":") else {
                guard text.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                    return fail("\(expected), got \"\(text)\" (missing :PORT)")
                }
                return fail(
                    "\(expected), got \"\(text)\" (a port alone; did you mean 127.0.0.1:\(text), this machine only, or "
                        + "0.0.0.0:\(text), every interface?)")
            }
            host = String(text[..<colon])
            portText = text[text.index(after: colon)...]
            guard !host.isEmpty else {
                return fail("\(expected), got \"\(text)\" (missing host; use 0.0.0.0 to listen on every interface)")
            }
            if host.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) {
                guard isIPv4Literal(host) else { return fail("\"\(host)\" in \"\(text)\" is not a valid IPv4 address") }
            } else if !isHostName(host) {
                return fail("\"\(host)\" in \"\(text)\" is not a valid IP address or host name")
            }
        }

        guard !portText.isEmpty else { return fail("\(expected), got \"\(text)\" (missing port)") }
        guard portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }), let port = Int(portText),
            (0...65535).contains(port)
        else {
            return fail("port \"\(portText)\" in \"\(text)\" is not a number between 0 and 65535")
        }
        return .success(ListenAddress(host: host, port: port))
    }

    static func isIPv4Literal(_ text: String) -> Bool {
        var address = in_addr()
        return inet_pton(AF_INET, text, &address) == 1
    }

    static func isIPv6Literal(_ text: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET6, text, &address) == 1
    }

    /// RFC 1123 host name: dot-separated labels of letters, digits and inner hyphens.
    static func isHostName(_ text: String) -> Bool {
        guard text.utf8.count <= 253 else { return false }
        let labels = text.split(separator: ".", omittingEmptySubsequences: false)
        return labels.allSatisfy { label in
            !label.isEmpty && label.utf8.count <= 63 && label.first != "-" && label.last != "-"
                && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        }
    }
}

/// Why a listen address was rejected.
public struct ListenAddressError: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: String
    public var description: String { reason }
}
