import StandardWebhooks

// MARK: Rules (errors are relative to the checked value; the tenants file reader and `validated` share them)

extension WebhookEndpoint {
    /// The endpoints checked as a configured `webhooks` would be. Error paths are relative to `webhooks`.
    package static func validated(_ endpoints: [WebhookEndpoint]) throws(TenantRuleError) -> [WebhookEndpoint] {
        try checkEndpointCount(endpoints.count)
        for (index, endpoint) in endpoints.enumerated() {
            try TenantRuleError.at("[\(index)]") { () throws(TenantRuleError) in
                try TenantRuleError.at(".id") { () throws(TenantRuleError) in
                    try checkID(endpoint.id, listedAfter: endpoints[..<index].map(\.id))
                }
                try TenantRuleError.at(".url") { () throws(TenantRuleError) in
                    try checkURL(endpoint.url, allowingPlainHTTP: endpoint.allowsPlainHTTP)
                }
                try TenantRuleError.at(".events") { () throws(TenantRuleError) in
                    if endpoint.events.isEmpty { throw emptyEvents }
                }
                try TenantRuleError.at(".secrets") { () throws(TenantRuleError) in
                    try checkSecretCount(endpoint.secrets.count)
                    try ListRule.checkEach(endpoint.secrets) { secret, before throws(TenantRuleError) in
                        try checkSecret(secret, listedAfter: before)
                    }
                }
            }
        }
        return endpoints
    }

    package static func checkEndpointCount(_ count: Int) throws(TenantRuleError) {
        guard count <= maxEndpoints else {
            throw TenantRuleError(.invalidValue, "expected at most \(maxEndpoints) endpoints, found \(count)")
        }
    }

    /// 1–64 characters of `[a-z0-9_-]`, not an ID listed before it.
    package static func checkID(_ id: String, listedAfter previous: [String]) throws(TenantRuleError) {
        guard (1...64).contains(id.utf8.count),
            id.utf8.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F || $0 == 0x2D })
        else {
            throw TenantRuleError(.invalidValue, "endpoint id \"\(id)\" is not 1 to 64 characters of [a-z0-9_-]")
        }
        try ListRule.checkNotListed(id, written: id, in: previous)
    }

    /// `https://`; `http://` to a loopback host, or to any host when the endpoint allows plain HTTP explicitly.
    package static func checkURL(_ url: String, allowingPlainHTTP: Bool) throws(TenantRuleError) {
        try PlayStoreSettings.checkServiceURL(url, allowingQuery: true, allowingPlainHTTP: allowingPlainHTTP)
    }

    package static func checkSecretCount(_ count: Int) throws(TenantRuleError) {
        guard secretCountRange.contains(count) else {
            throw TenantRuleError(
                .invalidValue,
                "expected \(secretCountRange.lowerBound) to \(secretCountRange.upperBound) secrets, found \(count); "
                    + "make one with `entctl gen-webhook-secret`")
        }
    }

    /// A Standard Webhooks secret (`whsec_` and base64 of 24 to 64 bytes); the message never quotes it.
    package static func checkSecret(_ secret: String, listedAfter previous: [String]) throws(TenantRuleError) {
        do throws(StandardWebhookError) {
            _ = try WebhookSecret(secret)
        } catch {
            throw TenantRuleError(.invalidValue, "\(error.message); make one with `entctl gen-webhook-secret`")
        }
        if previous.contains(secret) { throw TenantRuleError(.duplicateEntry, "the same secret is listed twice") }
    }

    package static func event(named name: String) throws(TenantRuleError) -> WebhookEventKind {
        guard let kind = WebhookEventKind(rawValue: name) else {
            throw TenantRuleError(
                .invalidValue,
                "unknown event \"\(name)\"; expected one of \(WebhookEventKind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return kind
    }

    package static var emptyEvents: TenantRuleError {
        TenantRuleError(.invalidValue, "no events: leave \"events\" out for every kind, or list the kinds wanted")
    }
}
