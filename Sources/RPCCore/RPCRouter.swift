import BoundedText

/// Maps `/package.Service/Method` paths to handlers.
public struct RPCRouter: Sendable {
    /// A registered method: what the transport needs to start a call, found with one dictionary lookup.
    ///
    /// A class: a call passes its route along several times, and a struct of three strings and two closures cost
    /// six reference-count operations per copy.
    public final class Route: Sendable {
        public let method: MethodDescriptor
        public let handler: RPCHandler
        /// The method's position in registration order, for per-method metric cells.
        public let metricsIndex: Int

        init(method: MethodDescriptor, handler: RPCHandler, metricsIndex: Int) {
            self.method = method
            self.handler = handler
            self.metricsIndex = metricsIndex
        }
    }

    private var routes: [String: Route] = [:]
    public private(set) var serviceNames: Set<String> = []

    public init() {}

    public mutating func register(_ method: MethodDescriptor, _ handler: RPCHandler) {
        let index = routes[method.path]?.metricsIndex ?? routes.count
        routes[method.path] = Route(method: method, handler: handler, metricsIndex: index)
        serviceNames.insert(method.service)
    }

    /// Every route, ordered by ``Route/metricsIndex``.
    public var routesByMetricsIndex: [Route] {
        routes.values.sorted { $0.metricsIndex < $1.metricsIndex }
    }

    public func route(forPath path: String) -> Route? {
        routes[path]
    }

    public func handler(forPath path: String) -> RPCHandler? {
        routes[path]?.handler
    }

    /// The `UNIMPLEMENTED` error for a path no handler serves, naming what is missing.
    public func unimplementedError(forPath path: String) -> RPCError {
        guard let method = MethodDescriptor(path: path) else {
            return RPCError(code: .unimplemented, message: "Malformed method path \(path.quotedForMessage).")
        }
        if serviceNames.contains(method.service) {
            return RPCError(
                code: .unimplemented,
                message:
                    "Method \(method.method.quotedForMessage) is not implemented by service \(method.service.quotedForMessage)."
            )
        }
        return RPCError(code: .unimplemented, message: "Service \(method.service.quotedForMessage) is not implemented.")
    }
}

/// A group of methods that registers itself on a router.
public protocol RPCService: Sendable {
    func register(on router: inout RPCRouter)
}

extension RPCRouter {
    public mutating func register(_ services: [any RPCService]) {
        for service in services { service.register(on: &self) }
    }
}
