import Foundation
import HTTP2Transport

#if canImport(Glibc)
import Glibc
#endif

/// One HTTP/1.1 POST over a fresh cleartext connection, for `entctl dev notify` (the server's webhook speaks
/// HTTP/1.1 and HTTP/2 on the gRPC port).
enum WebhookPost {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The response's status code and body (trimmed). A failed connect throws ``ClientConnectionFailure``, as a gRPC
    /// call's would.
    static func post(_ body: [UInt8], to address: ListenAddress, path: String) throws -> (Int, String) {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(address.host, String(address.port), &hints, &found) == 0, let info = found else {
            throw Failure(description: "cannot resolve \(address)")
        }
        defer { freeaddrinfo(found) }
        let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket() failed") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
            throw ClientConnectionFailure(connectErrno: errno, address: address.description)
        }
        let head =
            "POST \(path) HTTP/1.1\r\nHost: \(address)\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        let request = Array(head.utf8) + body
        var sent = 0
        while sent < request.count {
            let count = request.withUnsafeBytes { send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw Failure(description: "the connection to \(address) closed while sending") }
            sent += count
        }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            response += buffer[0..<count]
        }
        let text = String(decoding: response, as: UTF8.self)
        guard text.hasPrefix("HTTP/1.1 "), let status = Int(text.dropFirst(9).prefix(3)) else {
            throw Failure(description: "\(address) did not answer with HTTP/1.1")
        }
        let bodyStart = text.range(of: "\r\n\r\n").map { text[$0.upperBound...] } ?? ""
        return (status, bodyStart.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
