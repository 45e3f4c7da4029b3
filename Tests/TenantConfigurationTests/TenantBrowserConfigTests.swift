import EntitlementDomain
import TenantConfiguration
import Testing

/// The `web` object of a tenant configuration: the browser origins (``BrowserSettings``).
@Suite struct TenantBrowserConfigTests {
    static let publicHash = APIKey.hashString("pk_test_public")!

    /// A document whose line 4 is `"web": <web>`.
    static func document(_ web: String) -> String {
        "{\n\"tenants\": [\n{\n\"web\": \(web),\n\"id\": \"demo\",\n\"public_keys\": [\"\(publicHash)\"]\n}\n]\n}\n"
    }

    static func load(_ text: String) throws(TenantConfigError) -> TenantDirectory {
        try TenantConfigLoader.parse(Array(text.utf8), file: "tenants.json", directory: "/")
    }

    static func origins(_ list: String) throws -> [String] {
        try #require(try load(document("{\"allowed_origins\": [\(list)]}")).tenant(id: "demo")?.browser).allowedOrigins
    }

    /// The error loading `web` gives, checked to name the file, line and path.
    static func failure(_ web: String, sourceLocation: SourceLocation = #_sourceLocation) -> TenantConfigError? {
        do {
            _ = try load(document(web))
            Issue.record("expected a configuration error", sourceLocation: sourceLocation)
            return nil
        } catch {
            #expect(error.file == "tenants.json", sourceLocation: sourceLocation)
            #expect(error.line == 4, sourceLocation: sourceLocation)
            #expect(error.description.hasPrefix("tenants.json:4: \(error.path ?? "")"), sourceLocation: sourceLocation)
            return error
        }
    }

    @Test func absentMeansNoBrowserOrigins() throws {
        let directory = try Self.load("{\"tenants\": [{\"id\": \"a\", \"public_keys\": [\"\(Self.publicHash)\"]}]}")
        #expect(try #require(directory.tenant(id: "a")).browser == nil)
    }

    @Test func originsAsBrowsersSendThem() throws {
        let listed = [
            "https://app.example.com", "http://localhost:8080", "http://127.0.0.1:8080", "https://[::1]:8443",
            "https://xn--bcher-kva.example",
        ]
        let origins = try Self.origins(listed.map { "\"\($0)\"" }.joined(separator: ", "))
        #expect(origins == listed)
        let browser = BrowserSettings(allowedOrigins: origins)
        #expect(browser.allowsOrigin("http://localhost:8080"))
        #expect(!browser.allowsOrigin("http://localhost:8081"))
        #expect(!browser.allowsOrigin("https://app.example.com/"))
    }

    @Test func commentAllowed() throws {
        let tenant = try Self.load(Self.document("{\"_comment\": \"the web app\", \"allowed_origins\": [\"https://a.example\"]}"))
        #expect(tenant.tenant(id: "demo")?.browser?.allowedOrigins == ["https://a.example"])
    }

    @Test(arguments: [
        ("\"https://*.example.com\"", "has a wildcard"),
        ("\"*\"", "has a wildcard"),
        ("\"app.example.com\"", "does not start with http:// or https://"),
        ("\"HTTPS://app.example.com\"", "does not start with http:// or https://"),
        ("\"ftp://app.example.com\"", "does not start with http:// or https://"),
        ("\"https://app.example.com/\"", "has a path, query or trailing slash"),
        ("\"https://app.example.com/app\"", "has a path, query or trailing slash"),
        ("\"https://app.example.com?x=1\"", "has a path, query or trailing slash"),
        ("\"https://App.Example.com\"", "has upper-case letters in its host; browsers send it in lower case: \"https://app.example.com\""),
        ("\"https://user@app.example.com\"", "has user info"),
        ("\"https://app.example.com:443\"", "names the default port 443; browsers leave it out: \"https://app.example.com\""),
        ("\"http://localhost:80\"", "names the default port 80"),
        ("\"http://localhost:0\"", "has a port that is not a number from 1 to 65535"),
        ("\"http://localhost:65536\"", "has a port that is not a number from 1 to 65535"),
        ("\"http://localhost:\"", "has a port that is not a number from 1 to 65535"),
        ("\"https://\"", "has no host"),
        ("\"https://b\\u00fccher.example\"", "contains U+00FC"),
        ("\"https://app_example.com\"", "has a host that is not letters, digits, . and -"),
        ("\"https://[::1\"", "has an unclosed [ in its host"),
    ])
    func refusedOrigins(_ origin: String, _ message: String) throws {
        let error = try #require(Self.failure("{\"allowed_origins\": [\(origin)]}"))
        #expect(error.path == "tenants[0].web.allowed_origins[0]")
        #expect(error.description.contains(message), "\(error)")
    }

    @Test func duplicateOrigin() throws {
        let error = try #require(Self.failure("{\"allowed_origins\": [\"https://a.example\", \"https://a.example\"]}"))
        #expect(error.path == "tenants[0].web.allowed_origins[1]")
        #expect(error.description.hasSuffix("\"https://a.example\" is listed twice"))
    }

    @Test func emptyOrMissingList() throws {
        let empty = try #require(Self.failure("{\"allowed_origins\": []}"))
        #expect(empty.path == "tenants[0].web.allowed_origins")
        #expect(empty.description.contains("expected 1 to 100 origins, found 0"))
        let missing = try #require(Self.failure("{}"))
        #expect(missing.path == "tenants[0].web")
        #expect(missing.description.contains("missing \"allowed_origins\""))
        let unknown = try #require(Self.failure("{\"allowed_origin\": [\"https://a.example\"]}"))
        #expect(unknown.description.contains("did you mean \"allowed_origins\"?"))
        let notAList = try #require(Self.failure("{\"allowed_origins\": \"https://a.example\"}"))
        #expect(notAList.path == "tenants[0].web.allowed_origins")
    }

    /// Tenants built in code go through the same rules, with `tenant.web...` paths.
    @Test func tenantsBuiltInCode() throws {
        let tenant = try Tenant(
            id: "a", publicKeyHashes: [Self.publicHash], browser: BrowserSettings(allowedOrigins: ["https://a.example"]))
        #expect(tenant.browser?.allowedOrigins == ["https://a.example"])
        #expect(throws: TenantRuleError.self) {
            try Tenant(id: "a", publicKeyHashes: [Self.publicHash], browser: BrowserSettings(allowedOrigins: ["https://a.example/"]))
        }
        do {
            _ = try Tenant(id: "a", publicKeyHashes: [Self.publicHash], browser: BrowserSettings(allowedOrigins: []))
            Issue.record("an empty allowed_origins was accepted")
        } catch {
            #expect(error.path == "tenant.web.allowed_origins")
            #expect(error.message.contains("expected 1 to 100 origins, found 0"))
        }
    }
}
