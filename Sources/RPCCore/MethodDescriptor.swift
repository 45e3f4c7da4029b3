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
        let utf8 = path.utf8
        let slash = UInt8(ascii: "/")
        guard utf8.first == slash else { return nil }
        let serviceStart = utf8.index(after: utf8.startIndex)
        guard let separator = utf8[serviceStart...].firstIndex(of: slash) else { return nil }
        let methodStart = utf8.index(after: separator)
        guard separator > serviceStart, methodStart < utf8.endIndex, !utf8[methodStart...].contains(slash) else {
            return nil
        }
        self.init(
            service: String(decoding: utf8[serviceStart..<separator], as: UTF8.self),
            method: String(decoding: utf8[methodStart...], as: UTF8.self))
    }

    public var description: String { path }
}
