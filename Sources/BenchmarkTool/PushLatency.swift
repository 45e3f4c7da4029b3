import CivilCalendar
import EntitlementClient
import EntitlementsProto
import HTTP2Transport
import PosixIO
import ProtobufWire
import RPCCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Push latency with many streams open: from GrantEntitlement returning to the StatusEvent arriving.
enum PushLatency {
    static let streamsPerConnection = 100

    /// When each streamed customer last received a change, by customer index.
    final class Arrivals: Sendable {
        let times: Mutex<[Int: ContinuousClock.Instant]> = Mutex([:])
        let snapshots = Atomic<Int>(0)
    }

    static func measure(addresses: [ListenAddress], publicKey: String, secretKey: String, streams: Int, samples: Int)
        async throws
    {
        let configurations = addresses.map { GRPCClientConfiguration(host: $0.host, port: $0.port) }
        /// The server holding stream `index`'s connection.
        func server(ofStream index: Int) -> Int { (index / streamsPerConnection) % addresses.count }
        let arrivals = Arrivals()
        let streamMethod = MethodDescriptor(service: "entitlements.v1.EntitlementService", method: "StreamStatus")
        var clients: [EntitlementClient] = []
        var readers: [Task<Void, Never>] = []
        for index in 0..<streams {
            if index % streamsPerConnection == 0 {
                clients.append(
                    try EntitlementClient(
                        configuration: configurations[server(ofStream: index)], apiKey: publicKey, defaultTimeout: nil))
            }
            var request = StreamStatusRequest()
            request.appUserID = "bench-user-\(index)"
            let events = clients[clients.count - 1].serverStreaming(streamMethod, request, as: StatusEvent.self)
            readers.append(
                Task {
                    do {
                        for try await event in events {
                            if event.kind == .snapshot {
                                arrivals.snapshots.add(1, ordering: .relaxed)
                            } else {
                                let now = ContinuousClock.now
                                arrivals.times.withLock { $0[index] = now }
                            }
                        }
                    } catch {}
                })
        }
        let openStart = ContinuousClock.now
        while arrivals.snapshots.load(ordering: .relaxed) < streams {
            guard openStart.duration(to: .now) < .seconds(120) else {
                print("only \(arrivals.snapshots.load(ordering: .relaxed)) of \(streams) streams opened")
                exit(1)
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        print("open streams: \(streams) (snapshots received in \(openStart.duration(to: .now)))")
        // Out now, not at exit (stdout is a pipe): the script reads the server's memory and push histogram on this
        // line, before the first grant.
        fflush(nil)
        try await Task.sleep(for: .seconds(2))

        let admins = try configurations.map { try EntitlementClient(configuration: $0, apiKey: secretKey) }
        let grantMethod = MethodDescriptor(service: "entitlements.v1.AdminService", method: "GrantEntitlement")
        var generator = SystemRandomNumberGenerator()
        var latencies: [Double] = []
        for sample in 0..<samples {
            let target = Int.random(in: 0..<streams, using: &generator)
            let before = arrivals.times.withLock { $0[target] }
            var grant = GrantEntitlementRequest()
            grant.appUserID = "bench-user-\(target)"
            grant.entitlementID = "pro"
            grant.duration = ProtoDuration(.seconds(Seconds.perHour + Int64(sample)))
            let admin = admins[(server(ofStream: target) + 1) % admins.count]
            _ = try await admin.unary(grantMethod, grant, as: Grant.self)
            let returned = ContinuousClock.now
            var arrived: ContinuousClock.Instant?
            while arrived == nil {
                let latest = arrivals.times.withLock { $0[target] }
                if let latest, latest != before { arrived = latest } else { await Task.yield() }
                guard returned.duration(to: .now) < .seconds(5) else {
                    print("no event within 5 s for bench-user-\(target)")
                    exit(1)
                }
            }
            // An event may even arrive before the grant's response: the push and the response race.
            latencies.append(Double(returned.duration(to: arrived!).components.attoseconds) / 1e15
                + Double(returned.duration(to: arrived!).components.seconds) * 1000)
        }
        latencies.sort()
        func percentile(_ p: Double) -> Double { latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] }
        print(
            "push latency over \(samples) grants: p50 \(format(percentile(0.5))) ms, p99 \(format(percentile(0.99))) ms, "
                + "max \(format(latencies.last ?? 0)) ms")
        for reader in readers { reader.cancel() }
        exit(0)
    }

    static func format(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        return String(rounded)
    }
}
