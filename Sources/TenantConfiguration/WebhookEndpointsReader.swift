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
        func required(_ field: String, _ why: String) throws(TenantConfigError) -> JSONNode {
            guard let found = members[field] else { throw error(.missingField, node, path, "missing \"\(field)\": \(why)") }
            return found
        }
        let idNode = try required("id", "a name for the endpoint, unique in the tenant (\"backend\")")
        let id = try string(idNode, path: path + ".id")
        try rule(idNode, path + ".id") { () throws(TenantRuleError) in
            try WebhookEndpoint.checkID(id, listedAfter: previous.map(\.id))
        }
        var allowsPlainHTTP = false
        if let flagNode = members["allow_http"] {
            guard case .bool(let flag) = flagNode.value else {
                throw typeMismatch(flagNode, path + ".allow_http", expected: "true or false")
            }
            allowsPlainHTTP = flag
        }
        let urlNode = try required("url", "where deliveries are POSTed (\"https://api.example.com/hooks\")")
        let url = try string(urlNode, path: path + ".url")
        try rule(urlNode, path + ".url") { () throws(TenantRuleError) in
            try WebhookEndpoint.checkURL(url, allowingPlainHTTP: allowsPlainHTTP)
        }
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
        let secretsNode = try required("secrets", "the endpoint's signing secrets (`entctl gen-webhook-secret` makes one)")
        let secretNodes = try array(secretsNode, path: path + ".secrets")
        try rule(secretsNode, path + ".secrets") { () throws(TenantRuleError) in
            try WebhookEndpoint.checkSecretCount(secretNodes.count)
        }
        var secrets: [String] = []
        for (index, secretNode) in secretNodes.enumerated() {
            let secretPath = "\(path).secrets[\(index)]"
            let secret = try string(secretNode, path: secretPath)
            try rule(secretNode, secretPath) { () throws(TenantRuleError) in
                try WebhookEndpoint.checkSecret(secret, listedAfter: secrets)
            }
            secrets.append(secret)
        }
        return WebhookEndpoint(id: id, url: url, events: events, secrets: secrets, allowsPlainHTTP: allowsPlainHTTP)
    }
}
