import HTTP1
import Synchronization

/// Sends prepared HTTP requests, CONCURRENCY in flight, through the transport's HTTP/1.1 client (one keep-alive
/// connection per worker), and reports the rate; every answer must have the expected status.
enum HTTPRates {
    static func run(
        _ requests: [HTTPClientRequest], concurrency: Int, expecting accepted: Set<Int>, what: String
    ) async throws -> String {
        var configuration = HTTPClientConfiguration()
        configuration.maxIdleConnectionsPerOrigin = concurrency
        let client = try HTTPClient(configuration: configuration)
        defer { client.shutdown() }
        let progress = Progress()
        let clock = ContinuousClock()
        let start = clock.now
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    var mine: [Int: Int] = [:]
                    var latencies: [Duration] = []
                    while true {
                        let index = progress.next.add(1, ordering: .relaxed).oldValue
                        guard index < requests.count else { break }
                        let sent = clock.now
                        do throws(HTTPClientError) {
                            let response = try await client.send(requests[index], timeout: .seconds(30))
                            latencies.append(sent.duration(to: clock.now))
                            mine[response.status, default: 0] += 1
                            if !accepted.contains(response.status) {
                                let body = String(decoding: response.body.prefix(300), as: UTF8.self)
                                progress.firstError.withLock { if $0 == nil { $0 = "HTTP \(response.status): \(body)" } }
                            }
                        } catch {
                            mine[0, default: 0] += 1
                            progress.firstError.withLock { if $0 == nil { $0 = "\(error)" } }
                        }
                    }
                    progress.statuses.withLock { all in for (status, n) in mine { all[status, default: 0] += n } }
                    progress.record(latencies)
                }
            }
        }
        let elapsed = AppStoreBench.seconds(start.duration(to: clock.now))
        let all = progress.statuses.withLock { $0 }
        let good = all.filter { accepted.contains($0.key) }.values.reduce(0, +)
        if good != requests.count {
            fail("not every \(what) was answered \(accepted.sorted()): \(all) (0 = transport error); first: \(progress.firstError.withLock { $0 ?? "" })")
        }
        return "\(requests.count) \(what) in \(AppStoreBench.format(elapsed)) s: \(Int((Double(requests.count) / elapsed).rounded()))/s, \(progress.p99)"
    }
}
