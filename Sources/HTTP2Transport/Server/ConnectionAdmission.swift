import Glibc
public import Metrics
import RPCCore
import Synchronization

/// Which new connections the server takes, and the count of those it refused or cut off for a slow request head.
///
/// Open connections are bounded in all (so that accepting never runs the process out of file descriptors, where
/// `accept` would fail over and over) and per client address (so that one address cannot hold every slot). A
/// refused connection is closed at once, before any byte is read. Shared by every loop: the counts change on
/// accept and close only, never per request.
public final class ConnectionAdmission: Sendable {
    public enum Refusal: String, Sendable {
        case maxConnections = "max_connections"
        case maxConnectionsPerAddress = "max_connections_per_address"
    }

    /// The connections kept open at most; past it a new one is refused.
    public let maxConnections: Int
    /// The connections one client address may keep open at most; 0: no limit.
    public let maxConnectionsPerAddress: Int
    /// Exempt from the per-address limit: a proxy's connections carry many clients.
    private let trustedProxies: TrustedProxies

    public let refusals = LabeledCounter(
        "entitlementd_connections_refused_total",
        help: "Connections closed at accept because a limit was reached ([limits] max_connections, max_connections_per_address).",
        labels: ["reason"], initial: [[Refusal.maxConnections.rawValue], [Refusal.maxConnectionsPerAddress.rawValue]])
    public let requestHeadTimeouts = LabeledCounter(
        "entitlementd_request_head_timeouts_total",
        help: "Connections or requests cut off because a request head took longer than [limits] request_head_timeout_seconds.",
        labels: ["protocol"], initial: [[SlowHead.http1.rawValue], [SlowHead.http2.rawValue], [SlowHead.handshake.rawValue]])

    private struct Counts {
        var open = 0
        var byAddress: [String: Int] = [:]
        /// Refusals since the last log line, and when that line was written.
        var unlogged = 0
        var lastLogged: ContinuousClock.Instant?
    }

    private let counts = Mutex(Counts())
    private let logger: Logger
    /// At most one log line about refusals per interval, saying how many there were: a flood of connections must
    /// not become a flood of log lines.
    private static let logInterval: Duration = .seconds(10)

    /// `maxConnections` 0 derives the limit from the process's file-descriptor limit (see ``automaticLimit()``).
    init(maxConnections: Int, maxConnectionsPerAddress: Int, trustedProxies: TrustedProxies, logger: Logger) {
        self.maxConnections = maxConnections > 0 ? maxConnections : Self.automaticLimit()
        self.maxConnectionsPerAddress = maxConnectionsPerAddress
        self.trustedProxies = trustedProxies
        self.logger = logger
    }

    /// Open connections now, for the gauge.
    public var openConnections: Int { counts.withLock { $0.open } }

    /// Descriptors the process may hold, less a reserve for the listening sockets, the database, log files and
    /// outbound calls.
    static func automaticLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else {  // RLIM_INFINITY
            return 1_000_000
        }
        let descriptors = Int(clamping: limit.rlim_cur)
        return max(1, descriptors - min(256, descriptors / 4))
    }

    /// Takes a connection from `address` (a bare IP address), or says which limit refuses it. A taken connection is
    /// given back with ``release(address:)``.
    func admit(address: String) -> Refusal? {
        let now = ContinuousClock.now
        let perAddressLimit = trustedProxies.networks.isEmpty || !(IPAddress(address).map(trustedProxies.isTrusted) ?? false)
            ? maxConnectionsPerAddress : 0
        let (refusal, logLine) = counts.withLock { counts -> (Refusal?, (Refusal, Int)?) in
            var refusal: Refusal?
            if counts.open >= maxConnections {
                refusal = .maxConnections
            } else if perAddressLimit > 0, counts.byAddress[address, default: 0] >= perAddressLimit {
                refusal = .maxConnectionsPerAddress
            }
            guard let refusal else {
                counts.open += 1
                counts.byAddress[address, default: 0] += 1
                return (nil, nil)
            }
            counts.unlogged += 1
            if let last = counts.lastLogged, last.duration(to: now) < Self.logInterval { return (refusal, nil) }
            defer {
                counts.unlogged = 0
                counts.lastLogged = now
            }
            return (refusal, (refusal, counts.unlogged))
        }
        if let refusal { refusals.increment(refusal.rawValue) }
        if let (refusal, count) = logLine {
            let limit = refusal == .maxConnections ? maxConnections : maxConnectionsPerAddress
            logger.warning(
                "refusing connections: [limits] \(refusal.rawValue) = \(limit) reached",
                ["refused": String(count), "peer_address": address])
        }
        return refusal
    }

    /// Where a request head took too long: the TLS handshake or the first bytes, an HTTP/1.1 head, an HTTP/2 preface
    /// or header block.
    enum SlowHead: String {
        case handshake, http1, http2
    }

    func countRequestHeadTimeout(_ slowHead: SlowHead) {
        requestHeadTimeouts.increment(slowHead.rawValue)
    }

    func release(address: String) {
        counts.withLock { counts in
            counts.open -= 1
            let remaining = counts.byAddress[address, default: 1] - 1
            counts.byAddress[address] = remaining > 0 ? remaining : nil
        }
    }
}
