/// Where and how a client connects.
public struct GRPCClientConfiguration: Sendable {
    public struct TLS: Sendable {
        /// PEM file of trusted certificates; nil uses the system store.
        public var trustedCertificatesPath: String?
        /// The name to verify and send as SNI; defaults to the host.
        public var serverName: String?

        public init(trustedCertificatesPath: String? = nil, serverName: String? = nil) {
            self.trustedCertificatesPath = trustedCertificatesPath
            self.serverName = serverName
        }
    }

    public var host: String
    public var port: Int
    public var tls: TLS?
    public var maxReceiveMessageSize: Int = 4 * 1024 * 1024

    public init(host: String, port: Int, tls: TLS? = nil) {
        self.host = host
        self.port = port
        self.tls = tls
    }
}
