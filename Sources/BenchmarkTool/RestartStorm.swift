import EntitlementClient
import EntitlementsProto
import HTTP2Transport
import PosixIO
import RPCCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// `restart-storm`: STREAMS `StreamStatus` streams on instance A, A killed, every stream resumed on B at once.
///
/// B is named only once A's streams are ready, so that it can be started then: a running instance reads and caches
/// every customer another one changes, and the storm's worst case is a B that holds none of them.
///
/// A resume sends `after_version` one below the version the stream last saw, so B replays exactly that version: with
/// `after_version` equal to the current version B would send nothing until the customer's next change, and a resume
/// would not be observable. Each stream is resumed when its replayed event (of the version it last saw) arrives.
/// Every resume is sent at once after the kill, without the SDK's jittered backoff: the worst case for B.
enum RestartStorm {
    /// Each stream's customer version as last received, by stream index (0 before its snapshot).
    final class Versions: Sendable {
        let seen: Mutex<[UInt64]>
        init(count: Int) { seen = Mutex(Array(repeating: 0, count: count)) }

        func count(atLeast version: UInt64) -> Int { seen.withLock { $0.count { $0 >= version } } }
    }

    /// The resumes on B: how many arrived, each one's time from the kill, and any that came back wrong.
    final class Resumes: Sendable {
        let arrived = Atomic<Int>(0)
        let wrong = Mutex<String?>(nil)
        let progress = Progress()
        let latest = Mutex<Duration>(.zero)
    }

    static func measure(
        first: ListenAddress, firstPID: Int32, publicKey: String, secretKey: String, streams: Int
    ) async throws {
        let streamMethod = MethodDescriptor(service: "entitlements.v1.EntitlementService", method: "StreamStatus")
        let versions = Versions(count: streams)
        let onFirst = GRPCClientConfiguration(host: first.host, port: first.port)
        var clients: [EntitlementClient] = []
        for index in 0..<streams {
            if index % PushLatency.streamsPerConnection == 0 {
                clients.append(try EntitlementClient(configuration: onFirst, apiKey: publicKey, defaultTimeout: nil))
            }
            let events = clients[clients.count - 1].serverStreaming(
                streamMethod, StreamStatusRequest(appUserID: "bench-user-\(index)"), as: StatusEvent.self)
            Task {
                do {
                    for try await event in events {
                        if let version = event.customer?.version { versions.seen.withLock { $0[index] = version } }
                    }
                } catch {}  // A is killed: the stream ends.
            }
        }
        try await waitUntil("snapshots on A") { versions.count(atLeast: 1) == streams }

        // A resume needs a version below the current one that is not 0 (0 asks for a new stream, with a snapshot):
        // customers still at their first version get one change, through A (before B starts).
        let unchanged = versions.seen.withLock { seen in seen.indices.filter { seen[$0] < 2 } }
        if !unchanged.isEmpty {
            try await RPCRates.run(address: first, publicKey: secretKey, count: unchanged.count, concurrency: 64) {
                client, index in
                _ = try await client.grantEntitlement(
                    appUserID: "bench-user-\(unchanged[index])", entitlementID: "pro", duration: .seconds(3600))
            }
        }
        try await waitUntil("versions of 2 or more on A") { versions.count(atLeast: 2) == streams }
        let last = versions.seen.withLock { $0 }
        print("ready: \(streams) streams on A, \(clients.count) connections")
        fflush(nil)
        // The caller starts B and reads its baselines (PostgreSQL's counters, B's SyncStatus), then names B.
        guard let line = readLine(), let second = try? ListenAddress.parse(line).get() else {
            fail("restart-storm: expected the second server's HOST:PORT on standard input")
        }

        let resumes = Resumes()
        let killed = ContinuousClock.now
        guard kill(firstPID, SIGKILL) == 0 else { fail("restart-storm: cannot kill \(firstPID)") }
        let onSecond = GRPCClientConfiguration(host: second.host, port: second.port)
        var resumed: [EntitlementClient] = []
        for index in 0..<streams {
            if index % PushLatency.streamsPerConnection == 0 {
                resumed.append(try EntitlementClient(configuration: onSecond, apiKey: publicKey, defaultTimeout: nil))
            }
            let request = StreamStatusRequest(appUserID: "bench-user-\(index)", afterVersion: last[index] - 1)
            let events = resumed[resumed.count - 1].serverStreaming(streamMethod, request, as: StatusEvent.self)
            Task {
                do {
                    for try await event in events {
                        let elapsed = killed.duration(to: .now)
                        if event.kind == .snapshot || event.customer?.version != last[index] {
                            resumes.wrong.withLock {
                                if $0 == nil { $0 = "bench-user-\(index): \(event.kind.rawValue) at \(event.customer?.version ?? 0)" }
                            }
                        }
                        resumes.progress.record([elapsed])
                        resumes.latest.withLock { $0 = max($0, elapsed) }
                        resumes.arrived.add(1, ordering: .relaxed)
                        return
                    }
                } catch {
                    resumes.wrong.withLock { if $0 == nil { $0 = "bench-user-\(index): \(error)" } }
                }
            }
        }
        try await waitUntil("resumes on B") {
            resumes.arrived.load(ordering: .relaxed) == streams || resumes.wrong.withLock { $0 } != nil
        }
        if let wrong = resumes.wrong.withLock({ $0 }) { fail("restart-storm: not a replay of the last version: \(wrong)") }
        let seconds = AppStoreBench.seconds(resumes.latest.withLock { $0 })
        print(
            "restart storm: \(streams) streams resumed on B in \(AppStoreBench.format(seconds)) s from the kill "
                + "(\(resumes.progress.p99) per stream, \(resumed.count) connections, every resume sent at once)")
        exit(0)
    }

    /// Waits (up to 120 s) until `done`; otherwise says what did not happen and exits.
    private static func waitUntil(_ what: String, _ done: () -> Bool) async throws {
        let start = ContinuousClock.now
        while !done() {
            guard start.duration(to: .now) < .seconds(120) else { fail("restart-storm: no \(what) within 120 s") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
