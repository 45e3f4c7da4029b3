import AppStore
import Crypto
import EntitlementClient
import EntitlementsProto
import Foundation
import HTTP2Transport
import RPCCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// End-to-end App Store rates through a running server: `Purchase` RPCs and webhook notifications, all signed up
/// front (signing is not measured) with the local signing CA the benchmark tenant trusts for Sandbox.
enum AppStoreBench {
    static let bundleID = "com.example.app"
    static let productID = "com.example.pro.monthly"
    static let day: Int64 = 86_400_000

    /// Original transaction IDs shared by `purchase-rate` and `notify-rate`: notification n renews purchase n.
    static func originalTransactionID(_ index: Int) -> String { String(2_000_000_000_000 + index) }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func format(_ value: Double) -> String { String((value * 1000).rounded() / 1000) }

    static func loadCA(_ directory: String) -> LocalSigningCA {
        do { return try LocalSigningCA.load(from: directory) } catch { fail(error.description) }
    }

    /// `purchase-rate`: COUNT `Purchase` calls (user bench-buyer-n buys original transaction n), CONCURRENCY in flight
    /// spread over up to four connections.
    static func purchaseRate(address: ListenAddress, publicKey: String, caDirectory: String, count: Int, concurrency: Int)
        async throws
    {
        let ca = loadCA(caDirectory)
        let now = LocalPayloads.nowMilliseconds()
        let tokens = try (0..<count).map { index in
            try ca.sign(
                LocalPayloads.transaction(
                    bundleID: bundleID, productID: productID, originalTransactionID: originalTransactionID(index),
                    purchaseDate: now - day, expiresDate: now + 29 * day, signedDate: now))
        }
        let configuration = GRPCClientConfiguration(host: address.host, port: address.port)
        let clients = try (0..<min(4, concurrency)).map { _ in
            try EntitlementClient(configuration: configuration, apiKey: publicKey)
        }
        _ = try await clients.map { client in Task { try await client.checkHealth() } }.asyncMap { try await $0.value }
        let progress = Progress()
        let clock = ContinuousClock()
        let start = clock.now
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<concurrency {
                let client = clients[worker % clients.count]
                group.addTask {
                    while true {
                        let index = progress.next.add(1, ordering: .relaxed).oldValue
                        guard index < count else { return }
                        do {
                            let response = try await client.purchaseAppStore(
                                appUserID: "bench-buyer-\(index)", signedTransaction: tokens[index])
                            if response.customer == nil { throw BenchError(description: "no customer in the response") }
                        } catch {
                            progress.failures.add(1, ordering: .relaxed)
                            progress.firstError.withLock { if $0 == nil { $0 = "\(error)" } }
                        }
                    }
                }
            }
        }
        let elapsed = seconds(start.duration(to: clock.now))
        for client in clients { client.close() }
        let failed = progress.failures.load(ordering: .relaxed)
        if failed > 0 { fail("\(failed) of \(count) purchases failed; first: \(progress.firstError.withLock { $0 ?? "" })") }
        print("\(count) purchases in \(format(elapsed)) s: \(Int((Double(count) / elapsed).rounded()))/s")
    }

    /// `notify-rate`: COUNT `DID_RENEW` notifications (distinct notificationUUIDs) renewing original transactions 0
    /// ..< COUNT (those bought by `purchase-rate`; beyond its count they are unknown and stored unowned), POSTed over
    /// CONCURRENCY HTTP/1.1 keep-alive connections, one request in flight on each. Every answer must be 200.
    static func notifyRate(address: ListenAddress, tenant: String, caDirectory: String, count: Int, concurrency: Int) throws {
        let ca = loadCA(caDirectory)
        let now = LocalPayloads.nowMilliseconds()
        let bodies: [[UInt8]] = try (0..<count).map { index in
            let original = originalTransactionID(index)
            let transaction = try ca.sign(
                LocalPayloads.transaction(
                    bundleID: bundleID, productID: productID, originalTransactionID: original,
                    transactionID: String(3_000_000_000_000 + index), purchaseDate: now, expiresDate: now + 30 * day,
                    signedDate: now))
            let renewal = try ca.sign(
                LocalPayloads.renewalInfo(
                    originalTransactionID: original, productID: productID, renewalDate: now + 30 * day, signedDate: now))
            let notification = try ca.sign(
                LocalPayloads.notification(
                    type: "DID_RENEW", bundleID: bundleID, signedTransactionInfo: transaction,
                    signedRenewalInfo: renewal, status: .active, signedDate: now))
            return LocalPayloads.json(["signedPayload": notification])
        }
        let path = "/v1/apple/notifications/\(tenant)"
        let connections = try (0..<concurrency).map { _ in try HTTP1Connection(host: address.host, port: address.port) }
        let progress = Progress()
        let group = DispatchGroup()
        let clock = ContinuousClock()
        let start = clock.now
        for connection in connections {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                var mine: [Int: Int] = [:]
                while true {
                    let index = progress.next.add(1, ordering: .relaxed).oldValue
                    guard index < count else { break }
                    do {
                        let (status, body) = try connection.post(path: path, body: bodies[index])
                        mine[status, default: 0] += 1
                        if status != 200 {
                            progress.firstError.withLock { if $0 == nil { $0 = "HTTP \(status): \(String(decoding: body, as: UTF8.self))" } }
                        }
                    } catch {
                        mine[0, default: 0] += 1
                        progress.firstError.withLock { if $0 == nil { $0 = "\(error)" } }
                    }
                }
                progress.statuses.withLock { all in for (status, n) in mine { all[status, default: 0] += n } }
            }
            thread.start()
        }
        group.wait()
        let elapsed = seconds(start.duration(to: clock.now))
        let all = progress.statuses.withLock { $0 }
        if all[200, default: 0] != count {
            fail("not every notification got 200: \(all) (0 = transport error); first: \(progress.firstError.withLock { $0 ?? "" })")
        }
        print("\(count) notifications in \(format(elapsed)) s: \(Int((Double(count) / elapsed).rounded()))/s (all 200)")
    }
}

/// Shared by the workers of one run.
final class Progress: Sendable {
    let next = Atomic<Int>(0)
    let failures = Atomic<Int>(0)
    let firstError = Mutex<String?>(nil)
    let statuses = Mutex<[Int: Int]>([:])
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}

/// A minimal blocking HTTP/1.1 client on one keep-alive connection (reconnects when the server closes it). Used by
/// one thread at a time.
final class HTTP1Connection: @unchecked Sendable {
    let host: String
    let port: Int
    private var socket: Int32 = -1
    private var buffer: [UInt8] = []

    init(host: String, port: Int) throws {
        self.host = host
        self.port = port
        try connect()
    }

    deinit { if socket >= 0 { close(socket) } }

    private func connect() throws {
        if socket >= 0 { close(socket) }
        socket = -1
        buffer = []
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else {
            throw BenchError(description: "cannot resolve \(host)")
        }
        defer { freeaddrinfo(list) }
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            let fd = Glibc.socket(current.pointee.ai_family, current.pointee.ai_socktype, current.pointee.ai_protocol)
            if fd >= 0 {
                if Glibc.connect(fd, current.pointee.ai_addr, current.pointee.ai_addrlen) == 0 {
                    var one: Int32 = 1
                    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                    socket = fd
                    return
                }
                close(fd)
            }
            entry = current.pointee.ai_next
        }
        throw BenchError(description: "cannot connect to \(host):\(port): errno \(errno)")
    }

    /// POSTs a JSON body; returns the status and the response body.
    func post(path: String, body: [UInt8]) throws -> (Int, [UInt8]) {
        let head = "POST \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.count)\r\n\r\n"
        let request = Array(head.utf8) + body
        for attempt in 0..<2 {
            do {
                try send(request)
                return try readResponse()
            } catch let error as Closed {
                // The server closed an idle keep-alive connection: retry once on a fresh one.
                if attempt == 1 { throw BenchError(description: "connection closed: \(error.reason)") }
                try connect()
            }
        }
        throw BenchError(description: "unreachable")
    }

    private struct Closed: Error { let reason: String }

    private func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent < 0 {
                if errno == EINTR { continue }
                throw Closed(reason: "send: errno \(errno)")
            }
            offset += sent
        }
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let received = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if received > 0 {
                buffer.append(contentsOf: chunk[0..<received])
                return
            }
            if received < 0, errno == EINTR { continue }
            throw Closed(reason: received == 0 ? "end of stream" : "recv: errno \(errno)")
        }
    }

    private func readResponse() throws -> (Int, [UInt8]) {
        let separator: [UInt8] = [13, 10, 13, 10]
        var headerEnd: Int?
        var searchFrom = 0
        while headerEnd == nil {
            if buffer.count >= 4 {
                var i = max(0, searchFrom - 3)
                while i + 4 <= buffer.count {
                    if buffer[i] == 13, buffer[i + 1] == 10, buffer[i + 2] == 13, buffer[i + 3] == 10 { headerEnd = i; break }
                    i += 1
                }
                searchFrom = buffer.count
            }
            if headerEnd == nil { try fill() }
        }
        let headText = String(decoding: buffer[0..<headerEnd!], as: UTF8.self)
        var lines = headText.split(separator: "\r\n", omittingEmptySubsequences: false).makeIterator()
        guard let statusLine = lines.next(), statusLine.hasPrefix("HTTP/1."),
            let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "")
        else { throw BenchError(description: "bad status line: \(headText.prefix(80))") }
        var length = 0
        var closeAfter = false
        while let line = lines.next() {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let name = parts[0].lowercased()
            let value = parts[1].trimmingCharacters(in: .whitespaces)
            if name == "content-length" { length = Int(value) ?? 0 }
            if name == "connection", value.lowercased() == "close" { closeAfter = true }
            if name == "transfer-encoding" { throw BenchError(description: "chunked responses are not supported") }
        }
        let bodyStart = headerEnd! + separator.count
        while buffer.count < bodyStart + length { try fill() }
        let body = Array(buffer[bodyStart..<bodyStart + length])
        buffer.removeFirst(bodyStart + length)
        if closeAfter { try connect() }
        return (status, body)
    }
}
