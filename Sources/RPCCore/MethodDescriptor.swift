/// A fully-qualified RPC method: `/package.Service/Method` on the wire.
public struct MethodDescriptor: Hashable, Sendable, CustomStringConvertible {
    public let service: String
    public let method: String
    public let path: String

    public init(service: String, method: String) {
        self.service = service
        self.method = method
        self.path = "/\(service)/\(method)"
    }

    /// Splits a `:path`; nil unless it has exactly the form `/service/method` with both parts non-empty.
    public init?(path: some StringProtocol) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].isEmpty, !parts[1].isEmpty, !parts[2].isEmpty else { return nil }
        self.init(service: String(parts[1]), method: String(parts[2]))
    }

    public var description: String { path }
}
