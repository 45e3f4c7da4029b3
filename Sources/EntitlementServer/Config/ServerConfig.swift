import CivilCalendar
public import EntitlementDomain
import EntitlementStorage
public import EntitlementServices
import FileAccess
public import HTTP2Transport
public import PosixIO
public import RPCCore

/// Everything `entitlementd` needs to run, as read from its configuration file.
///
/// The file format and every key are documented in `Config/entitlementd.example.toml`.
public struct ServerConfig: Sendable {
    /// Listening address, TLS, limits and keepalive for the transport.
    public var transport: HTTP2ServerConfiguration
    /// Absolute path of the SQLite database; its directory exists once the configuration has loaded. Unused when
    /// `postgres` is set.
    public var databasePath: String
    /// The shared PostgreSQL database (`[storage] backend = "postgres"`); nil: SQLite at `databasePath`.
    public var postgres: PostgresSettings?
    public var logLevel: Logger.Level
    /// `[server] log_format`: text lines or one JSON object per line.
    public var logFormat: Logger.Format = .text
    /// Absolute path of the tenant definitions file, when one is configured.
    public var tenantsPath: String?
    /// The most writes that share one durable commit (1: each commits alone).
    public var maxWriteGroup = WriteQueueDefaults.maximumGroupSize
    /// `[storage] max_snapshot_reads` (8) and `max_waiting_snapshot_reads` (10,000): customers the cache did not
    /// hold, read from the database at once and waiting for a read.
    public var snapshotReads = SnapshotReadLimits()
    /// Open StreamStatus calls allowed per customer and per connection.
    public var maxStreamsPerCustomer: Int = 16
    public var maxStreamsPerConnection: Int = 100
    /// After the first SIGTERM/SIGINT: how long the server reports `NOT_SERVING` and 503 on `/readyz` while still
    /// accepting, so load balancers stop sending before it sends GOAWAY and stops accepting.
    public var shutdownDrainDelay: Duration = .seconds(5)
    /// PEM file of the certificates outbound HTTPS trusts (Google's APIs, tenants' webhooks); nil: the system store.
    public var outboundTrustedCertificatesPath: String?
    /// Each outbound attempt's limit, connecting included.
    public var outboundTimeout: Duration = .seconds(15)
    /// Outbound attempts per call (5xx, 429 and connection failures are retried).
    public var outboundMaxAttempts = 4
    /// The wait before a failed Google Play acknowledgement is tried again (doubling after each failure).
    public var playAcknowledgementFirstRetry: Duration = .seconds(30)
    /// Attempts at a Google Play acknowledgement before it is reported as failed.
    public var playAcknowledgementMaxAttempts = 40
    /// How long a gRPC-Web status stream may stay silent before a `HEARTBEAT` event goes out.
    public var grpcWebHeartbeat: Duration = .seconds(25)
    /// How long a browser may cache a CORS preflight's answer, in seconds.
    public var grpcWebCORSMaxAgeSeconds = 600

    /// The webhook dispatcher's retry schedule and in-flight bounds (`[webhooks]`).
    public var webhooks = WebhookDispatcher.Settings()

    /// The directory whose files are served at `/demo/` (the demo web page); nil: none.
    public var demoPageDirectory: String?
    /// The directory whose files are served at `/admin/` (``AdminConsole``, `Web/console`); nil: none.
    public var adminConsoleDirectory: String?

    /// Where a separate listener serves `GET /metrics` (`[metrics] listen`) to whoever reaches it; nil: the main port
    /// serves it to loopback clients only.
    public var metricsListenAddress: ListenAddress?

    /// `[server] trusted_proxies` and `client_address_header`: whose forwarding header names a call's client. The
    /// transport's: it also exempts their connections from the per-address connection limit.
    public var trustedProxies: TrustedProxies {
        get { transport.trustedProxies }
        set { transport.trustedProxies = newValue }
    }

    public init(
        transport: HTTP2ServerConfiguration = HTTP2ServerConfiguration(),
        databasePath: String,
        logLevel: Logger.Level = .info,
        tenantsPath: String? = nil
    ) {
        self.transport = transport
        self.databasePath = databasePath
        self.logLevel = logLevel
        self.tenantsPath = tenantsPath
    }

    /// Where the transport listens (`transport.host` and `transport.port`).
    public var listenAddress: ListenAddress {
        get { ListenAddress(host: transport.host, port: transport.port) }
        set {
            transport.host = newValue.host
            transport.port = newValue.port
        }
    }

    /// Reads and validates the configuration file at `path`; throws every problem it finds.
    ///
    /// Relative paths inside the file are resolved against the file's own directory. The database's directory is
    /// created when missing; the TLS files must exist and be readable.
    public static func load(path: String) throws(ConfigErrors) -> ServerConfig {
        try complete(read(path: path))
    }

    /// Parses configuration text as if read from `fileName`, resolving relative paths against `directory`; throws
    /// every problem it finds.
    public static func load(contents: String, fileName: String, directory: String) throws(ConfigErrors) -> ServerConfig {
        try complete(read(contents: contents, fileName: fileName, directory: directory))
    }

    private static func complete(_ reading: (config: ServerConfig?, problems: [ConfigError])) throws(ConfigErrors)
        -> ServerConfig
    {
        guard let config = reading.config, reading.problems.isEmpty else { throw ConfigErrors(reading.problems) }
        return config
    }

    /// The configuration file at `path` as far as it reads, and every problem in it, in file order. Keys with a
    /// problem keep their defaults, so `check-config` can go on to check what the rest names (TLS files, the
    /// tenants file); `config` is nil when the file cannot be read at all.
    static func read(path: String) -> (config: ServerConfig?, problems: [ConfigError]) {
        let bytes: [UInt8]
        switch FileSystem.readFile(path) {
        case .success(let contents): bytes = contents
        case .failure(let error): return (nil, [.unreadableFile(path, reason: error.reason)])
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return (nil, [.unreadableFile(path, reason: "it is not valid UTF-8 text")])
        }
        guard let absolute = FileSystem.realPath(path) else {
            return (nil, [.unreadableFile(path, reason: FileSystem.errnoDescription())])
        }
        return read(contents: text, fileName: path, directory: FileSystem.directoryName(absolute))
    }

    /// ``read(path:)`` for text read from `fileName`, relative paths resolved against `directory`.
    ///
    /// Reading the keys stops at the first problem, so the entry at fault is then set aside (read as if absent)
    /// and the keys read again, until they read through: every key's problem is reported, and a key added to
    /// ``ConfigReader/read()`` needs nothing more for that. A problem that names a key of its section set aside
    /// before (a TLS key without its pair, a key that applies only with another) follows from that key's problem and
    /// is not reported again; nor is a required key missing whose line could not be read.
    static func read(contents: String, fileName: String, directory: String) -> (config: ServerConfig?, problems: [ConfigError]) {
        var document = ConfigDocument.parse(contents, file: fileName)
        let base = FileSystem.resolve(directory, against: FileSystem.currentDirectory())
        var problems = document.problems
        var reader = ConfigReader(document: document, file: fileName, baseDirectory: base)
        problems += reader.unknownNames()
        problems += reader.missingKeys().filter { missing in
            !document.problems.contains { $0.key == missing.key && ($0.section == nil || $0.section == missing.section) }
        }
        var setAside: [ConfigDocument.Entry] = []
        var config: ServerConfig?
        while config == nil {
            do throws(ConfigError) {
                config = try reader.read()
            } catch {
                let follows = setAside.contains { $0.section == error.section && error.message.contains($0.key) }
                if !follows { problems.append(error) }
                guard let fault = document.entries.firstIndex(where: { $0.section == error.section && $0.key == error.key })
                else { break }
                setAside.append(document.entries.remove(at: fault))
                reader = ConfigReader(document: document, file: fileName, baseDirectory: base)
            }
        }
        // In file order (the sort is stable); problems of no line (missing keys) last.
        problems.sort { ($0.line ?? .max) < ($1.line ?? .max) }
        return (config, problems)
    }
}

/// The keys each section accepts, in the order the example file documents them.
let configSchema: [(section: String, keys: [String])] = [
    (
        "server",
        [
            "listen", "event_loop_threads", "shutdown_drain_delay_seconds", "shutdown_grace_period_seconds", "log_level",
            "log_format", "idle_timeout_seconds", "trusted_proxies", "client_address_header",
        ]
    ),
    (
        "tls",
        ["certificate", "private_key", "allow_cleartext", "session_resumption", "session_ticket_secret_file", "session_ticket_rotation_seconds"]
    ),
    (
        "limits",
        [
            "max_concurrent_streams", "max_header_list_bytes", "max_response_header_bytes", "max_receive_message_bytes", "initial_window_bytes",
            "max_buffered_response_bytes", "stream_reset_burst", "stream_reset_rate_per_second",
            "http1_max_header_bytes", "http1_max_body_bytes", "request_head_timeout_seconds", "max_connections",
            "max_connections_per_address", "idle_buffer_release_seconds",
        ]
    ),
    ("keepalive", ["interval_seconds", "timeout_seconds", "min_client_ping_interval_seconds"]),
    (
        "storage",
        [
            "backend", "database", "postgres_url", "postgres_max_connections", "postgres_lock_timeout_seconds",
            "postgres_statement_timeout_seconds", "postgres_idle_in_transaction_timeout_seconds", "max_write_group",
            "max_snapshot_reads", "max_waiting_snapshot_reads", "tenants",
        ]
    ),
    ("streams", ["max_per_customer", "max_per_connection"]),
    ("outbound_http", ["trusted_certificates", "timeout_seconds", "max_attempts"]),
    ("google_play", ["acknowledgement_first_retry_seconds", "acknowledgement_max_attempts"]),
    ("grpc_web", ["heartbeat_seconds", "cors_max_age_seconds"]),
    ("webhooks", ["retry_delays", "max_in_flight", "max_in_flight_per_tenant", "max_in_flight_per_endpoint"]),
    ("demo_page", ["directory"]),
    ("admin_console", ["directory"]),
    ("metrics", ["listen"]),
]

/// Keys earlier versions read, and where their setting is now.
let movedKeys: [String: String] = [
    "webhooks.retention_days":
        "how long delivered deliveries stay is each tenant's \"retention\": {\"webhook_days\": N} in the tenants file "
        + "(README, \"Retention\")",
    "webhooks.failed_retention_days":
        "how long failed deliveries stay is each tenant's \"retention\": {\"failed_webhook_days\": N} in the tenants "
        + "file (README, \"Retention\")",
]

/// Turns a parsed document into a ``ServerConfig``, key by key, with located errors.
private struct ConfigReader {
    typealias Entry = ConfigDocument.Entry

    let document: ConfigDocument
    let file: String
    let baseDirectory: String
    let entries: [String: [String: Entry]]

    init(document: ConfigDocument, file: String, baseDirectory: String) {
        self.document = document
        self.file = file
        self.baseDirectory = baseDirectory
        var entries: [String: [String: Entry]] = [:]
        for entry in document.entries { entries[entry.section, default: [:]][entry.key] = entry }
        self.entries = entries
    }

    /// Unknown sections and keys are errors: a typo must not silently fall back to a default.
    func unknownNames() -> [ConfigError] {
        let known = Dictionary(uniqueKeysWithValues: configSchema.map { ($0.section, $0.keys) })
        let sections = document.sections.filter { known[$0.name] == nil }.map { section in
            ConfigError.unknownSection(file, line: section.line, section: section.name, known: configSchema.map(\.section))
        }
        let keys = document.entries.compactMap { entry -> ConfigError? in
            guard let keys = known[entry.section], !keys.contains(entry.key) else { return nil }
            if let moved = movedKeys["\(entry.section).\(entry.key)"] {
                return .unknownKey(file, line: entry.line, section: entry.section, key: entry.key, movedTo: moved)
            }
            return .unknownKey(file, line: entry.line, section: entry.section, key: entry.key, known: keys)
        }
        return sections + keys
    }

    /// Required keys that are absent: `[server] listen`, and `postgres_url` with `backend = "postgres"`.
    func missingKeys() -> [ConfigError] {
        var missing: [ConfigError] = []
        if entries["server"]?["listen"] == nil {
            missing.append(
                .missingKey(file, section: "server", key: "listen", "add e.g. listen = \"127.0.0.1:50051\" under [server]"))
        }
        if entries["storage"]?["backend"]?.value == .string("postgres"), entries["storage"]?["postgres_url"] == nil {
            missing.append(
                .missingKey(
                    file, section: "storage", key: "postgres_url",
                    "backend = \"postgres\" needs a libpq connection string, e.g. postgres_url = \"host=/run/postgresql dbname=entitlementd\""))
        }
        return missing
    }

    func read() throws(ConfigError) -> ServerConfig {
        var transport = HTTP2ServerConfiguration()

        // [server] (a missing listen is one of missingKeys())
        if let listenEntry = entries["server"]?["listen"] {
            switch ListenAddress.parse(try string(listenEntry)) {
            case .success(let address):
                transport.host = address.host
                transport.port = address.port
            case .failure(let error):
                throw .invalidListenAddress(file, line: listenEntry.line, section: "server", key: "listen", error.reason)
            }
        }
        try integer("server", "event_loop_threads", 0...1024) { transport.eventLoopThreads = $0 }
        try integer("server", "shutdown_grace_period_seconds", 0...Int(Seconds.perHour)) { transport.shutdownGracePeriod = .seconds($0) }
        try integer("server", "idle_timeout_seconds", 1...Int(Seconds.perDay)) { transport.idleTimeout = .seconds($0) }
        var logLevel = Logger.Level.info
        if let entry = entries["server"]?["log_level"] {
            let name = try string(entry)
            guard let level = Logger.Level(configName: name) else {
                throw .invalidValue(
                    file, line: entry.line, section: "server", key: "log_level",
                    "expected one of \(Logger.Level.configNames), got \(entry.raw)"
                )
            }
            logLevel = level
        }

        // [limits]
        let kib = 1024, mib = 1024 * 1024, gib = 1024 * 1024 * 1024
        try integer("limits", "max_concurrent_streams", 1...10000) { transport.maxConcurrentStreams = $0 }
        try integer("limits", "max_header_list_bytes", kib...(16 * mib)) { transport.maxHeaderListSize = $0 }
        try integer("limits", "max_response_header_bytes", kib...(16 * mib)) { transport.maxResponseHeaderBlockSize = $0 }
        try integer("limits", "max_receive_message_bytes", kib...gib) { transport.maxReceiveMessageSize = $0 }
        // HTTP/2 caps flow-control windows at 2^31 - 1.
        try integer("limits", "initial_window_bytes", kib...Int(Int32.max)) { transport.initialWindowSize = $0 }
        try integer("limits", "max_buffered_response_bytes", kib...gib) { transport.maxBufferedResponseBytes = $0 }
        try integer("limits", "stream_reset_burst", 1...1_000_000) { transport.streamResetBurst = $0 }
        try integer("limits", "stream_reset_rate_per_second", 1...1_000_000) { transport.streamResetRatePerSecond = $0 }
        try integer("limits", "http1_max_header_bytes", kib...(16 * mib)) { transport.http1MaxHeaderBytes = $0 }
        try integer("limits", "http1_max_body_bytes", kib...gib) { transport.http1MaxBodyBytes = $0 }
        try integer("limits", "request_head_timeout_seconds", 1...Int(Seconds.perHour)) { transport.requestHeadTimeout = .seconds($0) }
        try integer("limits", "max_connections", 0...10_000_000) { transport.maxConnections = $0 }
        try integer("limits", "max_connections_per_address", 0...10_000_000) { transport.maxConnectionsPerAddress = $0 }
        try integer("limits", "idle_buffer_release_seconds", 1...Int(Seconds.perHour)) {
            transport.idleBufferRelease = .seconds($0)
        }

        // [keepalive]
        try integer("keepalive", "interval_seconds", 1...Int(7 * Seconds.perDay)) { transport.keepaliveInterval = .seconds($0) }
        try integer("keepalive", "timeout_seconds", 1...Int(Seconds.perHour)) { transport.keepaliveTimeout = .seconds($0) }
        try integer("keepalive", "min_client_ping_interval_seconds", 1...Int(Seconds.perDay)) {
            transport.minClientPingInterval = .seconds($0)
        }

        // [tls]
        let certificate = entries["tls"]?["certificate"]
        let privateKey = entries["tls"]?["private_key"]
        switch (certificate, privateKey) {
        case (nil, nil):
            transport.tls = nil
            if let entry = Self.sessionResumptionKeys.lazy.compactMap({ entries["tls"]?[$0] }).first {
                throw .invalidValue(
                    file, line: entry.line, section: "tls", key: entry.key, "applies only with certificate and private_key (TLS)")
            }
        case (let certificate?, nil):
            throw .tlsIncomplete(file, line: certificate.line, present: "certificate", missing: "private_key")
        case (nil, let privateKey?):
            throw .tlsIncomplete(file, line: privateKey.line, present: "private_key", missing: "certificate")
        case (let certificate?, let privateKey?):
            transport.tls = HTTP2ServerConfiguration.TLS(
                certificatePath: try readableFile(certificate),
                privateKeyPath: try readableFile(privateKey),
                sessionResumption: try sessionResumption()
            )
        }
        try boolean("tls", "allow_cleartext") { transport.allowCleartext = $0 }

        // [storage]
        let databasePath: String
        if let entry = entries["storage"]?["database"] {
            databasePath = try path(entry)
            if FileSystem.kind(of: databasePath) == .directory {
                throw .invalidValue(
                    file, line: entry.line, section: "storage", key: "database",
                    "\"\(databasePath)\" is a directory; name the database file inside it"
                )
            }
            try ensureDirectory(for: databasePath, line: entry.line)
        } else {
            databasePath = FileSystem.resolve("data/entitlementd.sqlite", against: baseDirectory)
            try ensureDirectory(for: databasePath, line: nil)
        }
        let tenantsPath = try entries["storage"]?["tenants"].map { entry throws(ConfigError) in try readableFile(entry) }

        var config = ServerConfig(
            transport: transport, databasePath: databasePath, logLevel: logLevel, tenantsPath: tenantsPath)
        config.postgres = try postgresSettings()
        if let entry = entries["server"]?["log_format"] {
            guard let format = Logger.Format(rawValue: try string(entry)) else {
                throw .invalidValue(
                    file, line: entry.line, section: "server", key: "log_format",
                    "expected \"text\" or \"json\", got \(entry.raw)")
            }
            config.logFormat = format
        }
        // [streams]
        try integer("streams", "max_per_customer", 1...1000) { config.maxStreamsPerCustomer = $0 }
        try integer("storage", "max_write_group", 1...1000) { config.maxWriteGroup = $0 }
        try integer("storage", "max_snapshot_reads", 1...64) { config.snapshotReads.inFlight = $0 }
        try integer("storage", "max_waiting_snapshot_reads", 0...1_000_000) { config.snapshotReads.waiting = $0 }
        try integer("streams", "max_per_connection", 1...10000) { config.maxStreamsPerConnection = $0 }
        try integer("server", "shutdown_drain_delay_seconds", 0...300) { config.shutdownDrainDelay = .seconds($0) }
        config.trustedProxies = try trustedProxies()
        // [outbound_http]
        config.outboundTrustedCertificatesPath = try entries["outbound_http"]?["trusted_certificates"].map {
            entry throws(ConfigError) in try readableFile(entry)
        }
        try integer("outbound_http", "timeout_seconds", 1...300) { config.outboundTimeout = .seconds($0) }
        try integer("outbound_http", "max_attempts", 1...10) { config.outboundMaxAttempts = $0 }
        // [google_play]
        try integer("google_play", "acknowledgement_first_retry_seconds", 1...Int(Seconds.perHour)) {
            config.playAcknowledgementFirstRetry = .seconds($0)
        }
        try integer("google_play", "acknowledgement_max_attempts", 1...100) { config.playAcknowledgementMaxAttempts = $0 }
        // [grpc_web]
        try integer("grpc_web", "heartbeat_seconds", 1...Int(Seconds.perHour)) { config.grpcWebHeartbeat = .seconds($0) }
        try integer("grpc_web", "cors_max_age_seconds", 0...Int(Seconds.perDay)) { config.grpcWebCORSMaxAgeSeconds = $0 }
        // [webhooks]
        if let entry = entries["webhooks"]?["retry_delays"] {
            guard let schedule = WebhookRetrySchedule(parsing: try string(entry)) else {
                throw .invalidValue(
                    file, line: entry.line, section: "webhooks", key: "retry_delays",
                    "expected 1 to 30 delays such as \"5s,5m,30m,2h\" (units ms, s, m, h, d; each at most 7d), got \(entry.raw)")
            }
            config.webhooks.schedule = schedule
        }
        var capacity = config.webhooks.capacity
        try integer("webhooks", "max_in_flight", 1...10_000) { capacity.total = $0 }
        try integer("webhooks", "max_in_flight_per_tenant", 1...10_000) { capacity.perTenant = $0 }
        try integer("webhooks", "max_in_flight_per_endpoint", 1...1000) { capacity.perEndpoint = $0 }
        config.webhooks.capacity = WebhookCapacity.Limits(
            total: capacity.total, perTenant: capacity.perTenant, perEndpoint: capacity.perEndpoint)
        // [metrics]
        if let entry = entries["metrics"]?["listen"] {
            switch ListenAddress.parse(try string(entry)) {
            case .success(let address):
                guard address != config.listenAddress || address.port == 0 else {
                    throw .invalidValue(
                        file, line: entry.line, section: "metrics", key: "listen",
                        "is the same address as [server] listen; leave it out to serve /metrics there")
                }
                config.metricsListenAddress = address
            case .failure(let error):
                throw .invalidListenAddress(file, line: entry.line, section: "metrics", key: "listen", error.reason)
            }
        }
        // [demo_page], [admin_console]
        func directory(_ entry: Entry) throws(ConfigError) -> String {
            let resolved = try path(entry)
            guard FileSystem.kind(of: resolved) == .directory else {
                throw .fileNotReadable(
                    file, line: entry.line, section: entry.section, key: entry.key, path: resolved,
                    reason: "it is not a directory")
            }
            return resolved
        }
        config.demoPageDirectory = try entries["demo_page"]?["directory"].map(directory)
        config.adminConsoleDirectory = try entries["admin_console"]?["directory"].map(directory)
        return config
    }

    // MARK: Typed values

    private func integer(
        _ section: String, _ key: String, _ bounds: ClosedRange<Int>, apply: (Int) -> Void
    ) throws(ConfigError) {
        guard let entry = entries[section]?[key] else { return }
        let expected = "an integer between \(bounds.lowerBound) and \(bounds.upperBound)"
        guard case .integer(let value) = entry.value else {
            throw .typeMismatch(file, line: entry.line, section: section, key: key, expected: expected, got: entry.raw)
        }
        guard bounds.contains(value) else {
            throw .outOfRange(file, line: entry.line, section: section, key: key, expected: expected, got: entry.raw)
        }
        apply(value)
    }

    private func boolean(_ section: String, _ key: String, apply: (Bool) -> Void) throws(ConfigError) {
        guard let entry = entries[section]?[key] else { return }
        guard case .boolean(let value) = entry.value else {
            throw .typeMismatch(
                file, line: entry.line, section: section, key: key, expected: "true or false", got: entry.raw)
        }
        apply(value)
    }

    private func string(_ entry: Entry) throws(ConfigError) -> String {
        guard case .string(let value) = entry.value else {
            throw .typeMismatch(
                file, line: entry.line, section: entry.section, key: entry.key, expected: "a string in double quotes",
                got: entry.raw
            )
        }
        return value
    }

    /// A non-empty path string, resolved against the configuration file's directory.
    private func path(_ entry: Entry) throws(ConfigError) -> String {
        let value = try string(entry)
        guard !value.isEmpty else {
            throw .invalidValue(file, line: entry.line, section: entry.section, key: entry.key, "the path is empty")
        }
        return FileSystem.resolve(value, against: baseDirectory)
    }

    /// The resolved path of a file that must exist and be readable now.
    private func readableFile(_ entry: Entry) throws(ConfigError) -> String {
        let resolved = try path(entry)
        switch FileSystem.kind(of: resolved) {
        case .missing:
            throw .fileNotFound(file, line: entry.line, section: entry.section, key: entry.key, path: resolved)
        case .directory, .other:
            throw .fileNotReadable(
                file, line: entry.line, section: entry.section, key: entry.key, path: resolved,
                reason: "it is not a regular file"
            )
        case .regularFile:
            guard FileSystem.isReadable(resolved) else {
                throw .fileNotReadable(
                    file, line: entry.line, section: entry.section, key: entry.key, path: resolved,
                    reason: FileSystem.errnoDescription()
                )
            }
            return resolved
        }
    }

    private static let sessionResumptionKeys = [
        "session_resumption", "session_ticket_secret_file", "session_ticket_rotation_seconds",
    ]

    /// `[tls] session_resumption` (on unless false) and its ticket keys' secret file and rotation period, which are
    /// refused with resumption off rather than ignored.
    private func sessionResumption() throws(ConfigError) -> HTTP2ServerConfiguration.SessionResumption? {
        var enabled = true
        try boolean("tls", "session_resumption") { enabled = $0 }
        guard enabled else {
            if let entry = Self.sessionResumptionKeys.dropFirst().lazy.compactMap({ entries["tls"]?[$0] }).first {
                throw .invalidValue(
                    file, line: entry.line, section: "tls", key: entry.key, "applies only with session_resumption = true")
            }
            return nil
        }
        var resumption = HTTP2ServerConfiguration.SessionResumption()
        resumption.secretPath = try entries["tls"]?["session_ticket_secret_file"].map { entry throws(ConfigError) in
            try readableFile(entry)
        }
        // At least 5 minutes, far longer than instances' clocks differ; at most the 7 days RFC 8446 §4.6.1 allows a
        // TLS 1.3 ticket to live.
        try integer("tls", "session_ticket_rotation_seconds", 300...Int(7 * Seconds.perDay)) { resumption.rotationSeconds = $0 }
        return resumption
    }

    /// `backend` picks the database; `postgres_url` is required with "postgres" and refused without it, so a
    /// half-edited file does not quietly keep using SQLite.
    private func postgresSettings() throws(ConfigError) -> PostgresSettings? {
        let storage = entries["storage"] ?? [:]
        var backend = "sqlite"
        if let entry = storage["backend"] {
            backend = try string(entry)
            guard ["sqlite", "postgres"].contains(backend) else {
                throw .invalidValue(
                    file, line: entry.line, section: "storage", key: "backend",
                    "expected \"sqlite\" or \"postgres\", got \(entry.raw)")
            }
        }
        guard backend == "postgres" else {
            for key in storage.keys.sorted() where key.hasPrefix("postgres_") {
                if let entry = storage[key] {
                    throw .invalidValue(
                        file, line: entry.line, section: "storage", key: key,
                        "applies only with backend = \"postgres\"")
                }
            }
            return nil
        }
        // A missing postgres_url is one of missingKeys().
        guard let entry = storage["postgres_url"] else { return nil }
        let conninfo = try string(entry)
        guard !conninfo.allSatisfy(\.isWhitespace) else {
            throw .invalidValue(file, line: entry.line, section: "storage", key: "postgres_url", "is empty")
        }
        var settings = PostgresSettings(conninfo: conninfo)
        try integer("storage", "postgres_max_connections", 1...1000) { settings.maxConnections = $0 }
        try integer("storage", "postgres_lock_timeout_seconds", 0...60) {
            settings.sessionTimeouts.lockMilliseconds = $0 * 1000
        }
        try integer("storage", "postgres_statement_timeout_seconds", 0...3600) {
            settings.sessionTimeouts.statementMilliseconds = $0 * 1000
        }
        try integer("storage", "postgres_idle_in_transaction_timeout_seconds", 0...3600) {
            settings.sessionTimeouts.idleInTransactionMilliseconds = $0 * 1000
        }
        return settings
    }

    /// `client_address_header` names the header of the proxies `trusted_proxies` lists; without them it means nothing
    /// and is refused, like `postgres_url` without PostgreSQL.
    private func trustedProxies() throws(ConfigError) -> TrustedProxies {
        let server = entries["server"] ?? [:]
        guard let list = server["trusted_proxies"] else {
            if let entry = server["client_address_header"] {
                throw .invalidValue(
                    file, line: entry.line, section: "server", key: "client_address_header",
                    "applies only with trusted_proxies (the proxies that write the header)")
            }
            return TrustedProxies()
        }
        var proxies = TrustedProxies()
        switch IPNetwork.parseList(try string(list)) {
        case .success(let networks): proxies.networks = networks
        case .failure(let error):
            throw .invalidValue(
                file, line: list.line, section: "server", key: "trusted_proxies",
                "expected addresses or ADDRESS/PREFIX blocks separated by commas, such as \"127.0.0.1, 10.0.0.0/8, fd00::/8\": \(error.reason)")
        }
        if let entry = server["client_address_header"] {
            let name = try string(entry).lowercased()
            guard let header = TrustedProxies.Header(rawValue: name) else {
                throw .invalidValue(
                    file, line: entry.line, section: "server", key: "client_address_header",
                    "expected \"x-forwarded-for\" or \"forwarded\", got \(entry.raw)")
            }
            proxies.header = header
        }
        return proxies
    }

    private func ensureDirectory(for databasePath: String, line: Int?) throws(ConfigError) {
        let directory = FileSystem.directoryName(databasePath)
        if case .failure(let error) = FileSystem.createDirectories(directory) {
            throw .storageDirectory(
                file, line: line, section: "storage", key: "database", directory: directory, reason: error.reason
            )
        }
        guard FileSystem.isWritable(directory) else {
            throw .storageDirectory(
                file, line: line, section: "storage", key: "database", directory: directory,
                reason: "it is not writable"
            )
        }
    }
}

extension Logger.Level {
    /// The names accepted by `log_level` and `--log-level`.
    public static let configNames = "debug, info, warning, error"

    /// `debug`, `info`, `warning` (or `warn`) and `error`, in any case.
    public init?(configName: String) {
        switch configName.lowercased() {
        case "debug": self = .debug
        case "info": self = .info
        case "warning", "warn": self = .warning
        case "error": self = .error
        default: return nil
        }
    }
}
