public import EntitlementDomain

/// How many deliveries are in flight, overall, per tenant and per endpoint, and which due ones may start: the
/// bounds that keep a slow or dead endpoint from taking more than its share (it holds at most `perEndpoint` slots,
/// its tenant at most `perTenant`, so every other endpoint still has room). A value: the dispatcher keeps one and
/// hands copies to the claim.
public struct WebhookCapacity: Sendable, Hashable {
    public struct Limits: Sendable, Hashable {
        public var total: Int
        public var perTenant: Int
        public var perEndpoint: Int

        public init(total: Int = 64, perTenant: Int = 16, perEndpoint: Int = 4) {
            self.total = max(1, total)
            self.perTenant = max(1, min(perTenant, self.total))
            self.perEndpoint = max(1, min(perEndpoint, self.perTenant))
        }
    }

    public let limits: Limits
    private(set) var total = 0
    private(set) var tenants: [String: Int] = [:]
    private(set) var endpoints: [WebhookEndpointKey: Int] = [:]

    public init(limits: Limits) {
        self.limits = limits
    }

    public var free: Int { limits.total - total }

    /// Endpoints with no room left, their own or their tenant's (for the claim's query to leave out).
    public func saturatedEndpoints(of configured: (String) -> [String]) -> [WebhookEndpointKey] {
        var saturated = endpoints.filter { $0.value >= limits.perEndpoint }.map(\.key)
        for (tenantID, count) in tenants where count >= limits.perTenant {
            for endpointID in configured(tenantID) {
                let key = WebhookEndpointKey(tenantID: tenantID, endpointID: endpointID)
                if !saturated.contains(key) { saturated.append(key) }
            }
        }
        return saturated.sorted { ($0.tenantID, $0.endpointID) < ($1.tenantID, $1.endpointID) }
    }

    /// The candidates that fit, in order, counting each as started.
    public mutating func admit(_ candidates: [WebhookDelivery]) -> [WebhookDelivery] {
        var admitted: [WebhookDelivery] = []
        for delivery in candidates where total < limits.total {
            let key = WebhookEndpointKey(tenantID: delivery.tenantID, endpointID: delivery.endpointID)
            guard tenants[delivery.tenantID, default: 0] < limits.perTenant,
                endpoints[key, default: 0] < limits.perEndpoint
            else { continue }
            start(key)
            admitted.append(delivery)
        }
        return admitted
    }

    public mutating func start(_ key: WebhookEndpointKey) {
        total += 1
        tenants[key.tenantID, default: 0] += 1
        endpoints[key, default: 0] += 1
    }

    public mutating func finish(_ key: WebhookEndpointKey) {
        total -= 1
        tenants[key.tenantID, default: 0] -= 1
        if tenants[key.tenantID] == 0 { tenants[key.tenantID] = nil }
        endpoints[key, default: 0] -= 1
        if endpoints[key] == 0 { endpoints[key] = nil }
    }
}
