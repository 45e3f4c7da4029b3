#if canImport(Glibc)
public import Glibc
#endif

/// 127.0.0.1 and a port, as the socket calls take an address: for the loopback servers and clients of tests.
public enum LoopbackAddress {
    /// Calls `body` with 127.0.0.1:`port` (0: any free port, for `bind`) and the address's length.
    public static func withSocketAddress<Result>(port: Int, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    /// The port a socket is bound to.
    public static func port(of fd: Int32) -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
