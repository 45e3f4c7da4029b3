public import PosixIO
import TransportTLS
public import RPCCore
public import ProtoJSON

/// Everything the transport needs to listen and police its peers. Defaults follow gRPC's own servers.
public struct HTTP2ServerConfiguration: Sendable {
    public struct TLS: Sendable, Hashable {
        /// PEM certificate chain, leaf first.
        public var certificatePath: String
        /// PEM private key.
        public var privateKeyPath: String
        /// How a returning client skips the certificate and its signature; nil: every handshake is a full one.
        public var sessionResumption: SessionResumption?

        public init(certificatePath: String, privateKeyPath: String, sessionResumption: SessionResumption? = SessionResumption()) {
            self.certificatePath = certificatePath
            self.privateKeyPath = privateKeyPath
            self.sessionResumption = sessionResumption
        }
    }

    /// Session tickets (TLS 1.3 and 1.2) whose keys derive from a secret, a key for each rotation period: instances
    /// given the same secret and period resume each other's sessions, and their own after a restart.
    public struct SessionResumption: Sendable, Hashable {
        /// The file of the secret instances share; nil: a random secret made at start, which only this process knows.
        public var secretPath: String?
        /// How long one key makes new tickets. A ticket is accepted for one more period, and announces a lifetime of
        /// one period.
        public var rotationSeconds: Int

        public init(secretPath: String? = nil, rotationSeconds: Int = 43_200) {
            self.secretPath = secretPath
            self.rotationSeconds = rotationSeconds
        }
    }

    public var host: String = "127.0.0.1"
    /// 0 picks a free port (tests); the bound port is reported by the server.
    public var port: Int = 50051
    /// When set, every connection is TLS 1.2/1.3 with ALPN `h2` (or `http/1.1`).
    public var tls: TLS?
    /// With TLS configured, whether clients may still speak cleartext on the same port (h2c, HTTP/1.1).
    public var allowCleartext: Bool = false
    /// Event-loop threads; each owns its connections. 0 means one per core.
    public var eventLoopThreads: Int = 0
    public var maxConcurrentStreams: Int = 100
    public var maxHeaderListSize: Int = 16 * 1024
    /// The largest HPACK-encoded response header block or trailers a stream sends; a larger one resets the stream.
    public var maxResponseHeaderBlockSize: Int = 64 * 1024
    public var maxReceiveMessageSize: Int = 4 * 1024 * 1024
    /// HTTP/2 stream-level receive window.
    public var initialWindowSize: Int = 1024 * 1024
    /// Unsent response bytes a stream may hold before its writer suspends.
    public var maxBufferedResponseBytes: Int = 256 * 1024
    /// Client RST_STREAM bursts allowed and the refill rate per second (Rapid Reset, CVE-2023-44487).
    public var streamResetBurst: Int = 1000
    public var streamResetRatePerSecond: Int = 33
    /// A PING goes out after the connection has been idle this long; no answer within the timeout closes it.
    public var keepaliveInterval: Duration = .seconds(7200)
    public var keepaliveTimeout: Duration = .seconds(20)
    /// An HTTP/2 connection that has sent nothing for this long gives its frame buffer's pages back to the kernel.
    public var idleBufferRelease: Duration = .seconds(10)
    /// A client may PING at most this often without a request in flight before it gets GOAWAY `too_many_pings`.
    public var minClientPingInterval: Duration = .seconds(300)
    /// How long in-flight calls may run after a graceful shutdown starts.
    public var shutdownGracePeriod: Duration = .seconds(10)
    public var http1MaxHeaderBytes: Int = 8 * 1024
    public var http1MaxBodyBytes: Int = 1024 * 1024
    /// An HTTP/1.1 connection or an unfinished handshake with no traffic for this long is closed.
    public var idleTimeout: Duration = .seconds(120)
    /// A request head must arrive whole within this long: an HTTP/1.1 request line and fields from their first byte,
    /// an HTTP/2 header block (HEADERS and CONTINUATIONs) from the read that began it, and a new connection's first
    /// head (HTTP/1.1) or preface and SETTINGS (HTTP/2) from the accept, TLS handshake included. Unlike the idle
    /// timeout, traffic does not restart it: a client trickling bytes cannot hold a connection.
    public var requestHeadTimeout: Duration = .seconds(10)
    /// Open connections in all; a new one past it is closed at once. 0: the file-descriptor limit less a reserve.
    public var maxConnections: Int = 0
    /// Open connections per client address (the TCP peer's); 0: no limit. Trusted proxies are exempt.
    public var maxConnectionsPerAddress: Int = 1000
    /// Reverse proxies whose forwarding headers name a call's client: each of their connections carries many
    /// clients, so none counts toward the per-address limit.
    public var trustedProxies = TrustedProxies()
    /// Which browser origins may call gRPC-Web methods; nil: none (preflights get 403, responses no CORS headers).
    public var grpcWebCORS: (any GRPCWebCORSPolicy)?
    /// The served methods' message types, for Connect calls in JSON; nil: Connect is served in binary protobuf only.
    public var messageSchema: ProtoSchema?

    public init() {}
}

extension HTTP2ServerConfiguration.TLS {
    /// Loads the certificate chain and private key as the server would, and checks that they match, and the session
    /// ticket secret, without serving: for `entitlementd check-config`.
    public func check() throws(TransportError) {
        _ = try makeContext()
    }

    /// The server's TLS context, with everything it names loaded.
    func makeContext() throws(TransportError) -> TLSContext {
        let ticketKeys = try sessionResumption.map { resumption throws(TransportError) in
            guard let secretPath = resumption.secretPath else {
                return try SessionTicketKeys.random(rotationSeconds: resumption.rotationSeconds)
            }
            return try SessionTicketKeys(secretFile: secretPath, rotationSeconds: resumption.rotationSeconds)
        }
        return try TLSContext(serverCertificatePath: certificatePath, privateKeyPath: privateKeyPath, ticketKeys: ticketKeys)
    }
}
