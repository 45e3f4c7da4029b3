import EntitlementDomain
import TenantConfiguration
import Testing

/// The `webhooks` array of a tenant configuration: each endpoint's id, URL, events and Standard Webhooks secrets.
@Suite struct TenantWebhooksConfigTests {
    static let publicHash = APIKey.hashString("pk_test_public")!
    static let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    static let otherSecret = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD"

    /// A document whose line 4 is `"webhooks": <webhooks>`.
    static func document(_ webhooks: String) -> String {
        "{\n\"tenants\": [\n{\n\"webhooks\": \(webhooks),\n\"id\": \"demo\",\n\"public_keys\": [\"\(publicHash)\"]\n}\n]\n}\n"
    }

    static func endpoints(_ webhooks: String) throws -> [WebhookEndpoint] {
        try #require(try TenantConfigLoader.parse(Array(document(webhooks).utf8), file: "tenants.json", directory: "/")
            .tenant(id: "demo")).webhooks
    }

    /// The error loading `webhooks` gives: it names the file, the line and the path, and never quotes a secret.
    static func failure(_ webhooks: String, sourceLocation: SourceLocation = #_sourceLocation) -> TenantConfigError? {
        do {
            _ = try TenantConfigLoader.parse(Array(document(webhooks).utf8), file: "tenants.json", directory: "/")
            Issue.record("expected a configuration error", sourceLocation: sourceLocation)
            return nil
        } catch {
            #expect(error.description.hasPrefix("tenants.json:4: "), sourceLocation: sourceLocation)
            #expect(!error.description.contains("MfKQ9r8GKYqr"), "the error quotes a secret", sourceLocation: sourceLocation)
            return error
        }
    }

    static func endpoint(_ fields: String) -> String {
        "[{\"id\": \"backend\", \"url\": \"https://api.example.com/hooks?tenant=demo\", \"secrets\": [\"\(secret)\"]\(fields)}]"
    }

    @Test func absentMeansNoEndpoints() throws {
        let directory = try TenantConfigLoader.parse(
            Array("{\"tenants\": [{\"id\": \"a\", \"public_keys\": [\"\(Self.publicHash)\"]}]}".utf8), file: "t", directory: "/")
        #expect(try #require(directory.tenant(id: "a")).webhooks.isEmpty)
    }

    @Test func anEndpointWantsEveryKindUnlessItSaysWhich() throws {
        let all = try #require(try Self.endpoints(Self.endpoint("")).first)
        #expect(all.id == "backend" && all.url == "https://api.example.com/hooks?tenant=demo")
        #expect(all.events == Set(WebhookEventKind.allCases) && all.secrets == [Self.secret] && !all.allowsPlainHTTP)
        let some = try #require(
            try Self.endpoints(Self.endpoint(", \"events\": [\"status_changed\", \"refund\"]")).first)
        #expect(some.events == [.statusChanged, .refund])
        #expect(!some.description.contains(Self.secret))
    }

    @Test func twoSecretsWhileOneIsRolled() throws {
        let endpoint = try #require(
            try Self.endpoints(
                "[{\"id\": \"b\", \"url\": \"https://h.example\", \"secrets\": [\"\(Self.secret)\", \"\(Self.otherSecret)\"]}]"
            ).first)
        #expect(endpoint.secrets == [Self.secret, Self.otherSecret])
    }

    @Test func plainHTTPOnlyToThisMachineUnlessAllowed() throws {
        #expect(try Self.endpoints("[{\"id\": \"b\", \"url\": \"http://127.0.0.1:9000/h\", \"secrets\": [\"\(Self.secret)\"]}]").count == 1)
        let refused = Self.failure("[{\"id\": \"b\", \"url\": \"http://backend.internal/h\", \"secrets\": [\"\(Self.secret)\"]}]")
        #expect(refused?.path == "tenants[0].webhooks[0].url" && refused?.message.contains("plain http://") == true)
        let allowed = try Self.endpoints(
            "[{\"id\": \"b\", \"url\": \"http://backend.internal/h\", \"allow_http\": true, \"secrets\": [\"\(Self.secret)\"]}]")
        #expect(allowed.first?.allowsPlainHTTP == true)
    }

    @Test(arguments: [
        ("[{\"url\": \"https://h.example\", \"secrets\": [\"\(secret)\"]}]", "tenants[0].webhooks[0]", "missing \"id\""),
        ("[{\"id\": \"Backend\", \"url\": \"https://h.example\", \"secrets\": [\"\(secret)\"]}]", "tenants[0].webhooks[0].id", "[a-z0-9_-]"),
        ("[{\"id\": \"b\", \"url\": \"ftp://h.example\", \"secrets\": [\"\(secret)\"]}]", "tenants[0].webhooks[0].url", "https://"),
        ("[{\"id\": \"b\", \"url\": \"https://h.example/#x\", \"secrets\": [\"\(secret)\"]}]", "tenants[0].webhooks[0].url", "fragment"),
        ("[{\"id\": \"b\", \"url\": \"https://h.example\", \"secrets\": []}]", "tenants[0].webhooks[0].secrets", "gen-webhook-secret"),
        ("[{\"id\": \"b\", \"url\": \"https://h.example\", \"secrets\": [\"MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\"]}]", "tenants[0].webhooks[0].secrets[0]", "whsec_"),
        ("[{\"id\": \"b\", \"url\": \"https://h.example\", \"secrets\": [\"\(secret)\", \"\(secret)\"]}]", "tenants[0].webhooks[0].secrets[1]", "twice"),
        ("[{\"id\": \"b\", \"url\": \"https://h.example\", \"events\": [], \"secrets\": [\"\(secret)\"]}]", "tenants[0].webhooks[0].events", "no events"),
        ("[{\"id\": \"b\", \"url\": \"https://h.example\", \"events\": [\"renewals\"], \"secrets\": [\"\(secret)\"]}]", "tenants[0].webhooks[0].events[0]", "unknown event"),
        ("[{\"id\": \"b\", \"url\": \"https://h.example\", \"events\": [\"refund\", \"refund\"], \"secrets\": [\"\(secret)\"]}]", "tenants[0].webhooks[0].events[1]", "twice"),
        ("[{\"id\": \"b\", \"url\": \"https://h.example\", \"secrets\": [\"\(secret)\"], \"retries\": 3}]", "tenants[0].webhooks[0].retries", "unknown field"),
        ("[{\"id\": \"b\", \"url\": \"https://h.example\", \"secrets\": [\"\(secret)\"]}, {\"id\": \"b\", \"url\": \"https://i.example\", \"secrets\": [\"\(otherSecret)\"]}]", "tenants[0].webhooks[1].id", "twice"),
    ])
    func refusals(_ webhooks: String, path: String, says: String) {
        let error = Self.failure(webhooks)
        #expect(error?.path == path, "\(error?.description ?? "")")
        #expect(error?.message.contains(says) == true, "\(error?.description ?? "")")
    }

    @Test func atMostTenEndpoints() {
        let many = (0...10).map { "{\"id\": \"e\($0)\", \"url\": \"https://h.example\", \"secrets\": [\"\(Self.secret)\"]}" }
        let error = Self.failure("[" + many.joined(separator: ", ") + "]")
        #expect(error?.path == "tenants[0].webhooks" && error?.message.contains("at most 10") == true)
    }

    @Test func endpointsBuiltInCodeAreCheckedByTheSameRules() throws {
        let good = WebhookEndpoint(id: "backend", url: "https://h.example", secrets: [Self.secret])
        let tenant = try Tenant(id: "a", publicKeyHashes: [Self.publicHash], webhooks: [good])
        #expect(tenant.webhooks == [good])
        let bad = WebhookEndpoint(id: "backend", url: "https://h.example", secrets: ["whsec_short"])
        #expect(throws: TenantRuleError.self) { try Tenant(id: "a", publicKeyHashes: [Self.publicHash], webhooks: [bad]) }
    }
}
