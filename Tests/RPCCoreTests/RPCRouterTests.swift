import RPCCore
import Testing

private struct EchoService: RPCService {
    static let echo = MethodDescriptor(service: "test.Echo", method: "Echo")
    static let stream = MethodDescriptor(service: "test.Echo", method: "Stream")

    func register(on router: inout RPCRouter) {
        router.register(Self.echo, RPCHandler(kind: .unary) { _, _ in })
        router.register(Self.stream, RPCHandler(kind: .bidirectional) { _, _ in })
    }
}

private struct HealthService: RPCService {
    func register(on router: inout RPCRouter) {
        router.register(MethodDescriptor(service: "grpc.health.v1.Health", method: "Check"), RPCHandler(kind: .unary) { _, _ in })
    }
}

@Suite struct RPCRouterTests {
    @Test func emptyRouterServesNothing() {
        let router = RPCRouter()
        #expect(router.handler(forPath: "/test.Echo/Echo") == nil)
        #expect(router.serviceNames.isEmpty)
    }

    @Test func registeredHandlersAreFoundByExactPath() throws {
        var router = RPCRouter()
        router.register(MethodDescriptor(service: "a.S", method: "Get"), RPCHandler(kind: .serverStreaming) { _, _ in })
        router.register(MethodDescriptor(service: "a.S", method: "Put"), RPCHandler(kind: .clientStreaming) { _, _ in })
        #expect(try #require(router.handler(forPath: "/a.S/Get")).kind == .serverStreaming)
        #expect(try #require(router.handler(forPath: "/a.S/Put")).kind == .clientStreaming)
        #expect(router.handler(forPath: "/a.S/get") == nil, "paths are case-sensitive")
        #expect(router.handler(forPath: "a.S/Get") == nil)
        #expect(router.handler(forPath: "/a.S/Get/") == nil)
        #expect(router.handler(forPath: "/a.S") == nil)
        #expect(router.serviceNames == ["a.S"])
    }

    @Test func routeCarriesTheMethodAndTheHandler() throws {
        var router = RPCRouter()
        let method = MethodDescriptor(service: "a.S", method: "Get")
        router.register(method, RPCHandler(kind: .serverStreaming) { _, _ in })
        let route = try #require(router.route(forPath: "/a.S/Get"))
        #expect(route.method == method)
        #expect(route.handler.kind == .serverStreaming)
        #expect(router.route(forPath: "/a.S/Put") == nil)
    }

    @Test func reRegisteringAPathReplacesTheHandler() throws {
        var router = RPCRouter()
        let method = MethodDescriptor(service: "a.S", method: "M")
        router.register(method, RPCHandler(kind: .unary) { _, _ in })
        router.register(method, RPCHandler(kind: .bidirectional) { _, _ in })
        #expect(try #require(router.handler(forPath: "/a.S/M")).kind == .bidirectional)
    }

    @Test func servicesRegisterThemselves() throws {
        var router = RPCRouter()
        router.register([EchoService(), HealthService()])
        #expect(router.serviceNames == ["test.Echo", "grpc.health.v1.Health"])
        #expect(try #require(router.handler(forPath: "/test.Echo/Echo")).kind == .unary)
        #expect(try #require(router.handler(forPath: "/test.Echo/Stream")).kind == .bidirectional)
        #expect(router.handler(forPath: "/grpc.health.v1.Health/Check") != nil)
    }

    @Test func unimplementedErrorForAnUnknownService() {
        var router = RPCRouter()
        router.register([EchoService()])
        let error = router.unimplementedError(forPath: "/other.Service/Echo")
        #expect(error.code == .unimplemented)
        #expect(error.message == "Service 'other.Service' is not implemented.")
    }

    @Test func unimplementedErrorForAnUnknownMethodOfAKnownService() {
        var router = RPCRouter()
        router.register([EchoService()])
        let error = router.unimplementedError(forPath: "/test.Echo/Missing")
        #expect(error.code == .unimplemented)
        #expect(error.message == "Method 'Missing' is not implemented by service 'test.Echo'.")
    }

    @Test(arguments: ["", "/", "test.Echo/Echo", "/test.Echo", "/test.Echo/Echo/extra"])
    func unimplementedErrorForAMalformedPath(path: String) {
        var router = RPCRouter()
        router.register([EchoService()])
        let error = router.unimplementedError(forPath: path)
        #expect(error.code == .unimplemented)
        #expect(error.message == "Malformed method path '\(path)'.")
    }
}
