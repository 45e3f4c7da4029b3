import AppStore
import CivilCalendar
import EntitlementClient
import EntitlementsProto
import Foundation
import HTTP1
import HTTP2Transport
import PosixIO
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// End-to-end App Store rates through a running server: `Purchase` RPCs and webhook notifications, all signed up
/// front (signing is not measured) with the local signing CA the benchmark tenant trusts for Sandbox.
enum AppStoreBench {
    static let bundleID = "com.example.app"
    static let productID = "com.example.pro.monthly"

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
    static func purchaseRate(
        address: ListenAddress, publicKey: String, caDirectory: String, count: Int, concurrency: Int, first: Int
    ) async throws {
        let ca = loadCA(caDirectory)
        let now = LocalPayloads.nowMilliseconds()
        let tokens = try (first..<first + count).map { index in
            try ca.sign(
                LocalPayloads.transaction(
                    bundleID: bundleID, productID: productID, originalTransactionID: originalTransactionID(index),
                    purchaseDate: now - Milliseconds.perDay, expiresDate: now + 29 * Milliseconds.perDay, signedDate: now))
        }
        try await RPCRates.run(address: address, publicKey: publicKey, count: count, concurrency: concurrency) {
            client, index in
            let response = try await client.purchaseAppStore(
                appUserID: "bench-buyer-\(first + index)", signedTransaction: tokens[index])
            if response.customer == nil { throw BenchError(description: "no customer in the response") }
        }
    }

    /// `notify-rate`: COUNT `DID_RENEW` notifications (distinct notificationUUIDs) renewing original transactions FIRST
    /// ..< FIRST + COUNT (those bought by `purchase-rate`; beyond its count they are unknown and stored unowned), POSTed over
    /// CONCURRENCY HTTP/1.1 keep-alive connections, one request in flight on each. Every answer must be 200.
    static func notifyRate(
        address: ListenAddress, tenant: String, caDirectory: String, count: Int, concurrency: Int, first: Int
    ) async throws {
        let ca = loadCA(caDirectory)
        let now = LocalPayloads.nowMilliseconds()
        let requests: [HTTPClientRequest] = try (first..<first + count).map { index in
            let original = originalTransactionID(index)
            let transaction = try ca.sign(
                LocalPayloads.transaction(
                    bundleID: bundleID, productID: productID, originalTransactionID: original,
                    transactionID: String(3_000_000_000_000 + index), purchaseDate: now, expiresDate: now + 30 * Milliseconds.perDay,
                    signedDate: now))
            let renewal = try ca.sign(
                LocalPayloads.renewalInfo(
                    originalTransactionID: original, productID: productID, renewalDate: now + 30 * Milliseconds.perDay, signedDate: now))
            let notification = try ca.sign(
                LocalPayloads.notification(
                    type: "DID_RENEW", bundleID: bundleID, signedTransactionInfo: transaction,
                    signedRenewalInfo: renewal, status: .active, signedDate: now))
            return HTTPClientRequest(
                method: "POST", scheme: .http, host: address.host, port: address.port,
                target: "/v1/apple/notifications/\(tenant)", headers: ["Content-Type": "application/json"],
                body: LocalPayloads.json(["signedPayload": notification]))
        }
        let line = try await HTTPRates.run(requests, concurrency: concurrency, expecting: [200], what: "notifications")
        print(line + " (all 200)")
    }
}

/// COUNT calls of `call` (given the call's index), CONCURRENCY in flight spread over up to four connections; prints
/// the rate, or fails naming the first error.
enum RPCRates {
    static func run(
        address: ListenAddress, publicKey: String, count: Int, concurrency: Int,
        _ call: @escaping @Sendable (EntitlementClient, Int) async throws -> Void
    ) async throws {
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
                    var latencies: [Duration] = []
                    defer { progress.record(latencies) }
                    while true {
                        let index = progress.next.add(1, ordering: .relaxed).oldValue
                        guard index < count else { return }
                        let sent = clock.now
                        do {
                            try await call(client, index)
                            latencies.append(sent.duration(to: clock.now))
                        } catch {
                            progress.failures.add(1, ordering: .relaxed)
                            progress.firstError.withLock { if $0 == nil { $0 = "\(error)" } }
                        }
                    }
                }
            }
        }
        let elapsed = AppStoreBench.seconds(start.duration(to: clock.now))
        for client in clients { client.close() }
        let failed = progress.failures.load(ordering: .relaxed)
        if failed > 0 { fail("\(failed) of \(count) calls failed; first: \(progress.firstError.withLock { $0 ?? "" })") }
        print("\(count) calls in \(AppStoreBench.format(elapsed)) s: \(Int((Double(count) / elapsed).rounded()))/s, \(progress.p99)")
    }
}

/// Shared by the workers of one run.
final class Progress: Sendable {
    let next = Atomic<Int>(0)
    let failures = Atomic<Int>(0)
    let firstError = Mutex<String?>(nil)
    let statuses = Mutex<[Int: Int]>([:])
    private let latencies = Mutex<[Duration]>([])

    /// Adds a worker's latencies of successful calls.
    func record(_ worker: [Duration]) {
        latencies.withLock { $0 += worker }
    }

    /// "p99 N ms" of the latencies recorded.
    var p99: String {
        let sorted = latencies.withLock { $0.sorted() }
        guard !sorted.isEmpty else { return "p99 n/a" }
        let p99 = sorted[max(0, Int((Double(sorted.count) * 0.99).rounded(.up)) - 1)]
        return "p99 \(AppStoreBench.format(AppStoreBench.seconds(p99) * 1000)) ms"
    }
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
