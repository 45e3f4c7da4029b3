import EntitlementDomain
import EntitlementServices
import RPCCore
import Testing
import TestSupport

/// A browser call's `Origin` against its key's tenant (gRPC-Web), after authentication.
@Suite struct BrowserOriginTests {
    static let key = "pk_" + String(repeating: "ab", count: 32)
    static let otherKey = "pk_" + String(repeating: "cd", count: 32)
    static let method = MethodDescriptor(service: "entitlements.v1.EntitlementService", method: "SyncStatus")

    let registry: TenantRegistry

    init() throws {
        let web = try Tenant(
            id: "web", publicKeyHashes: [APIKey.hashString(Self.key)!],
            browser: BrowserSettings(allowedOrigins: ["https://app.example.com"]))
        let plain = try Tenant(id: "plain", publicKeyHashes: [APIKey.hashString(Self.otherKey)!])
        registry = TenantRegistry(try TenantDirectory(tenants: [web, plain]))
    }

    func context(key: String, origin: String?, connection: ConnectionMemory = ConnectionMemory()) -> ServerContext {
        var metadata = Metadata()
        metadata.add(.string("Bearer \(key)"), forKey: "authorization")
        return ServerContext(
            method: Self.method, metadata: metadata, timeout: nil, peer: "test", connection: connection,
            rpcProtocol: origin != nil ? .grpcWeb : .grpc, browserOrigin: origin, responseSink: RecordingResponseSink())
    }

    func tenant(key: String = Self.key, origin: String?, connection: ConnectionMemory = ConnectionMemory())
        throws(DomainError) -> String
    {
        try CallerAuthentication.caller(
            of: context(key: key, origin: origin, connection: connection), requires: .publicKey, scope: .write,
            in: registry
        ).tenant.id
    }

    @Test func listedOriginAndNoOriginPass() throws {
        #expect(try tenant(origin: "https://app.example.com") == "web")
        #expect(try tenant(origin: nil) == "web")
        #expect(try tenant(key: Self.otherKey, origin: nil) == "plain")
    }

    @Test func unlistedOriginIsPermissionDenied() {
        do {
            _ = try tenant(origin: "https://evil.example")
            Issue.record("an unlisted origin was accepted")
        } catch {
            #expect(error.code == .permissionDenied)
            #expect(
                error.message
                    == "origin 'https://evil.example' is not allowed for this tenant; list it in the tenant's web.allowed_origins")
        }
        #expect(throws: DomainError.permissionDenied("")) { try tenant(key: Self.otherKey, origin: "https://app.example.com") }
    }

    /// A key the connection authenticated before skips the directory; its origin is checked all the same.
    @Test func rememberedKeysAreCheckedToo() throws {
        let connection = ConnectionMemory()
        #expect(try tenant(origin: "https://app.example.com", connection: connection) == "web")
        #expect(throws: DomainError.permissionDenied("")) {
            try tenant(origin: "http://app.example.com", connection: connection)
        }
    }
}
