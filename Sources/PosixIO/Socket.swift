import CSystemShims
import Glibc

/// Thin wrappers over the POSIX socket calls the transport uses; descriptors are non-blocking and close-on-exec.
package enum Socket {
    /// Binds a listening socket. No SO_REUSEPORT: a second server on the same port must fail, not share it.
    package static func listen(host: String, port: Int) throws(TransportError) -> Int32 {
        let address = try resolve(host: host, port: port, passive: true)
        let fd = socket(Int32(address.family), Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .system("socket", errno) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafeBytes(of: address.storage) { raw in
            bind(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), address.length)
        }
        guard bound == 0 else {
            let error = errno
            close(fd)
            if error == EADDRINUSE { throw .addressInUse("\(host):\(port)") }
            throw .system("bind \(host):\(port)", error)
        }
        guard Glibc.listen(fd, 1024) == 0 else {
            let error = errno
            close(fd)
            throw .system("listen", error)
        }
        return fd
    }

    /// Starts a non-blocking connect; completion is signalled by writability.
    package static func connect(host: String, port: Int) throws(TransportError) -> Int32 {
        let address = try resolve(host: host, port: port, passive: false)
        let fd = socket(Int32(address.family), Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .system("socket", errno) }
        setNoDelay(fd)
        let result = withUnsafeBytes(of: address.storage) { raw in
            Glibc.connect(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), address.length)
        }
        guard result == 0 || errno == EINPROGRESS else {
            let error = errno
            close(fd)
            throw .connect(error)
        }
        return fd
    }

    /// A pending connection: its socket, the client's bare address (for limits per address) and its address with the
    /// port (for logs).
    package static func accept(_ listener: Int32) -> (fd: Int32, address: String, peer: String)? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let fd = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                cshim_accept4(listener, $0, &length)
            }
        }
        guard fd >= 0 else { return nil }
        setNoDelay(fd)
        let (address, peer) = describe(storage)
        return (fd, address, peer)
    }

    package static func localPort(_ fd: Int32) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return port(of: storage)
    }

    /// The pending error of a non-blocking connect; 0 once connected.
    static func pendingError(_ fd: Int32) -> Int32 {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
        return error
    }

    private static func setNoDelay(_ fd: Int32) {
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    private struct ResolvedAddress {
        var storage: sockaddr_storage
        var length: socklen_t
        var family: Int32
    }

    private static func resolve(host: String, port: Int, passive: Bool) throws(TransportError) -> ResolvedAddress {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = passive ? AI_PASSIVE : 0
        var result: UnsafeMutablePointer<addrinfo>?
        let bareHost = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        guard getaddrinfo(bareHost, String(port), &hints, &result) == 0, let info = result else {
            throw .invalidAddress("\(host):\(port)")
        }
        defer { freeaddrinfo(result) }
        var storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) { destination in
            destination.copyMemory(from: UnsafeRawBufferPointer(start: info.pointee.ai_addr, count: Int(info.pointee.ai_addrlen)))
        }
        return ResolvedAddress(storage: storage, length: info.pointee.ai_addrlen, family: info.pointee.ai_family)
    }

    private static func port(of storage: sockaddr_storage) -> Int {
        var storage = storage
        return withUnsafeBytes(of: &storage) { raw in
            // sin_port and sin6_port share offset 2, in network byte order.
            Int(raw[2]) << 8 | Int(raw[3])
        }
    }

    private static func describe(_ storage: sockaddr_storage) -> (address: String, peer: String) {
        var storage = storage
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        let length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo($0, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST)
            }
        }
        guard status == 0 else { return ("unknown", "unknown") }
        let name = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let port = port(of: storage)
        return (name, storage.ss_family == sa_family_t(AF_INET6) ? "[\(name)]:\(port)" : "\(name):\(port)")
    }
}
