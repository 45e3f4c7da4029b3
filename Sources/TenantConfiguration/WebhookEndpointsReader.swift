import EntitlementDomain

/// A tenant's `webhooks` array (see ``WebhookEndpoint`` for the format): the JSON shapes here, every rule from the
/// domain. No error quotes a secret.
extension TenantConfigReader {
    static let webhookEndpointFields = ["id", "url", "events", "secrets", "allow_http", "_comment"]

    func webhookEndpoints(_ node: JSONNode, path: String) throws(TenantConfigError) -> [WebhookEndpoint] {
        let endpointNodes = try array(node, path: path)
        try rule(node, path) { () throws(TenantRuleError) in try WebhookEndpoint.checkEndpointCount(endpointNodes.count) }
        var endpoints: [WebhookEndpoint] = []
        for (index, endpointNode) in endpointNodes.enumerated() {
            endpoints.append(try webhookEndpoint(endpointNode, path: "\(path)[\(index)]", listedAfter: endpoints))
        }
        return endpoints
    }

    private func webhookEndpoint(_ node: JSONNode, path: String, listedAfter previous: [WebhookEndpoint])
        throws(TenantConfigError) -> WebhookEndpoint
    {
        let members = try object(node, path: path, allowed: Self.webhookEndpointFields, what: "a webhook endpoint")
        let id = try requiredString(
            "id", of: members, in: node, at: path, "a name for the endpoint, unique in the tenant (\"backend\")"
        ) { text throws(TenantRuleError) in try WebhookEndpoint.checkID(text, listedAfter: previous.map(\.id)) }
        let allowsPlainHTTP = try optionalFlag("allow_http", of: members, at: path, absent: false)
        let url = try requiredString(
            "url", of: members, in: node, at: path, "where deliveries are POSTed (\"https://api.example.com/hooks\")"
        ) { text throws(TenantRuleError) in try WebhookEndpoint.checkURL(text, allowingPlainHTTP: allowsPlainHTTP) }
        var events = Set(WebhookEventKind.allCases)
        if let eventsNode = members["events"] {
            let eventNodes = try array(eventsNode, path: path + ".events")
            events = []
            for (index, eventNode) in eventNodes.enumerated() {
                let eventPath = "\(path).events[\(index)]"
                let name = try string(eventNode, path: eventPath)
                let kind = try rule(eventNode, eventPath) { () throws(TenantRuleError) in try WebhookEndpoint.event(named: name) }
                guard events.insert(kind).inserted else {
                    throw error(.duplicateEntry, eventNode, eventPath, "\"\(name)\" is listed twice")
                }
            }
            if events.isEmpty { throw error(.invalidValue, eventsNode, path + ".events", WebhookEndpoint.emptyEvents.message) }
        }
        let secrets = try requiredList(
            "secrets", of: members, in: node, at: path,
            "the endpoint's signing secrets (`entctl gen-webhook-secret` makes one)",
            count: { count throws(TenantRuleError) in try WebhookEndpoint.checkSecretCount(count) }
        ) { secret, listed throws(TenantRuleError) in
            try WebhookEndpoint.checkSecret(secret, listedAfter: listed)
            return secret
        }.elements
        return WebhookEndpoint(id: id, url: url, events: events, secrets: secrets, allowsPlainHTTP: allowsPlainHTTP)
    }
}
