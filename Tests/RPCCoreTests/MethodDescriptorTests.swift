import RPCCore
import Testing

@Suite struct MethodDescriptorTests {
    @Test func serviceAndMethodBuildThePath() {
        let method = MethodDescriptor(service: "entitlements.v1.Entitlements", method: "Check")
        #expect(method.path == "/entitlements.v1.Entitlements/Check")
        #expect(method.description == "/entitlements.v1.Entitlements/Check")
        #expect(method.service == "entitlements.v1.Entitlements")
        #expect(method.method == "Check")
    }

    @Test(arguments: [
        ("/entitlements.v1.Entitlements/Check", "entitlements.v1.Entitlements", "Check"),
        ("/grpc.health.v1.Health/Watch", "grpc.health.v1.Health", "Watch"),
        ("/S/m", "S", "m"),
    ])
    func parsesValidPaths(path: String, service: String, method: String) throws {
        let descriptor = try #require(MethodDescriptor(path: path))
        #expect(descriptor.service == service)
        #expect(descriptor.method == method)
        #expect(descriptor.path == path)
        #expect(descriptor == MethodDescriptor(service: service, method: method))
        #expect(MethodDescriptor(path: ("xx" + path).dropFirst(2)) == descriptor, "Substring input")
    }

    @Test(arguments: [
        "", "/", "//", "///", "Service/Method", "Service", "/Service", "/Service/", "//Method", "/Service/Method/",
        "/a/b/c", "//Service/Method", "/Service//Method", " /Service/Method",
    ])
    func rejectsMalformedPaths(path: String) {
        #expect(MethodDescriptor(path: path) == nil)
    }

    @Test func hashableByAllParts() {
        let set: Set = [MethodDescriptor(service: "a", method: "b"), MethodDescriptor(path: "/a/b")!, MethodDescriptor(service: "a", method: "c")]
        #expect(set.count == 2)
    }
}
