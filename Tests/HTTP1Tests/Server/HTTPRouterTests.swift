import Testing

@testable import HTTP1

/// Named with the HTTP1 prefix so `swift test --filter HTTP1` runs it with the parser and serializer tests.
@Suite("HTTP1 router")
struct HTTP1RouterTests {
    private func makeRouter() -> HTTPRouter {
        HTTPRouter { routes in
            routes.register("GET", "/healthz") { _ in .text(200, "ok\n") }
            routes.register("POST", "/v1/apple/notifications/{tenant_id}") { request in
                .text(202, "tenant=\(request.pathParameters["tenant_id"] ?? "-")")
            }
            routes.register("GET", "/v1/tenants/{tenant}/users/{user}") { request in
                .text(200, "\(request.pathParameters["tenant"]!)/\(request.pathParameters["user"]!)")
            }
            routes.register("DELETE", "/v1/tenants/{tenant}/users/{user}") { _ in .empty(204) }
            routes.register("GET", "/v1/tenants/{tenant}/users/me") { request in
                .text(200, "me of \(request.pathParameters["tenant"]!)")
            }
            routes.register("PUT", "/v1/items/{id}") { _ in .empty(204) }
            routes.register("GET", "/v1/items/special") { _ in .text(200, "special") }
            routes.register("GET", "/") { _ in .text(200, "root") }
        }
    }

    private func body(_ response: HTTPResponse) -> String {
        String(decoding: response.body, as: UTF8.self)
    }

    @Test func extractsPercentDecodedParameters() async {
        let router = makeRouter()
        let response = await router.respond(to: HTTPRequest(method: "POST", path: "/v1/apple/notifications/acme%20co%2Fx"))
        #expect(response.status == 202)
        #expect(body(response) == "tenant=acme co/x")

        let two = await router.respond(to: HTTPRequest(method: "GET", path: "/v1/tenants/t1/users/u%C3%A9"))
        #expect(body(two) == "t1/ué")

        guard case .matched(_, let parameters, _) = router.route(method: "GET", path: "/v1/tenants/a/users/b") else {
            Issue.record("expected a match")
            return
        }
        #expect(parameters == ["tenant": "a", "user": "b"])
    }

    @Test func literalSegmentsWinOverParameters() async {
        let router = makeRouter()
        #expect(body(await router.respond(to: HTTPRequest(method: "GET", path: "/v1/tenants/t/users/me"))) == "me of t")
        #expect(body(await router.respond(to: HTTPRequest(method: "GET", path: "/v1/tenants/t/users/you"))) == "t/you")
        // The literal pattern has no DELETE, so the parameter pattern serves it.
        #expect(await router.respond(to: HTTPRequest(method: "DELETE", path: "/v1/tenants/t/users/me")).status == 204)
        #expect(body(await router.respond(to: HTTPRequest(method: "GET", path: "/v1/items/special"))) == "special")
        #expect(await router.respond(to: HTTPRequest(method: "PUT", path: "/v1/items/special")).status == 204)
    }

    @Test func notFound() async {
        let router = makeRouter()
        for path in [
            "/nope", "/healthz/", "//healthz", "/v1/apple/notifications", "/v1/apple/notifications/",
            "/v1/apple/notifications/a/b", "/v1/apple/notifications/%zz", "/v1/apple/notifications/%FF", "healthz", "",
        ] {
            guard case .notFound = router.route(method: "POST", path: path) else {
                Issue.record("\(path) should not be found")
                continue
            }
        }
        let response = await router.respond(to: HTTPRequest(method: "GET", path: "/nope"))
        #expect(response.status == 404)
        #expect(response.headers["allow"] == nil)
    }

    @Test func methodNotAllowedListsAllowedMethods() async {
        let router = makeRouter()
        let response = await router.respond(to: HTTPRequest(method: "POST", path: "/healthz"))
        #expect(response.status == 405)
        #expect(response.headers["allow"] == "GET, HEAD")

        guard case .methodNotAllowed(let allowed) = router.route(method: "POST", path: "/v1/tenants/t/users/me") else {
            Issue.record("expected 405")
            return
        }
        #expect(allowed == ["DELETE", "GET", "HEAD"])

        guard case .methodNotAllowed(let onlyPost) = router.route(method: "GET", path: "/v1/apple/notifications/t") else {
            Issue.record("expected 405")
            return
        }
        #expect(onlyPost == ["POST"])
        // Methods are case-sensitive.
        guard case .methodNotAllowed = router.route(method: "get", path: "/healthz") else {
            Issue.record("expected 405")
            return
        }
    }

    @Test func headIsServedByGet() async {
        let router = makeRouter()
        let response = await router.respond(to: HTTPRequest(method: "HEAD", path: "/healthz"))
        #expect(response.status == 200)
        #expect(body(response) == "ok\n")  // the serializer drops it for HEAD
    }

    @Test func matchesPath() {
        let router = makeRouter()
        #expect(router.matches(path: "/healthz"))
        #expect(router.matches(path: "/healthz?verbose=1"))
        #expect(router.matches(path: "/v1/apple/notifications/t"))
        #expect(router.matches(path: "/"))
        #expect(!router.matches(path: "/entitlements.v1.Entitlements/Check"))
        #expect(!router.matches(path: "/grpc.health.v1.Health/Check"))
        #expect(!router.matches(path: "*"))
    }

    /// ASCII paths are matched without decoding; every path must be judged as routing judges it.
    @Test(arguments: [
        "/healthz", "/healthz/", "/healthz/x", "//healthz", "/", "", "/v1/apple/notifications/t", "/v1/apple/notifications/",
        "/v1/apple/notifications/t/", "/v1/apple/notifications", "/v1/apple", "/v1/apple/notifications/%74",
        "/health%7Az", "/v1/apple/notifications/%", "/v1/apple/notifications/é", "/v1/apple/notifications/\u{FF}",
        "/entitlements.v1.EntitlementService/SyncStatus", "/healthzz", "/health", "/v1/tenants/a/users/me",
        "/v1/tenants/a/users/", "/v1/tenants//users/b",
    ])
    func matchesPathAsRoutingDoes(path: String) {
        let router = makeRouter()
        let routed: Bool
        switch router.route(method: "GET", path: path) {
        case .notFound: routed = false
        case .matched, .methodNotAllowed: routed = true
        }
        #expect(router.matches(path: path) == routed)
    }

    @Test func queryDoesNotAffectRouting() async {
        let router = makeRouter()
        let request = HTTPRequest(method: "GET", target: "/healthz?x=1")
        #expect(request.path == "/healthz")
        #expect(request.query == "x=1")
        #expect(await router.respond(to: request).status == 200)
    }

    @Test func handlerSeesTheWholeRequest() async {
        let router = HTTPRouter { routes in
            routes.register("POST", "/echo/{id}") { request in
                HTTPResponse(
                    status: 200,
                    headers: ["x-id": request.pathParameters["id"] ?? "", "x-query": request.query ?? ""],
                    body: request.body
                )
            }
        }
        let response = await router.respond(
            to: HTTPRequest(method: "POST", path: "/echo/42", query: "a=b", headers: ["X-Foo": "bar"], body: [1, 2, 3])
        )
        #expect(response.body == [1, 2, 3])
        #expect(response.headers["x-id"] == "42")
        #expect(response.headers["x-query"] == "a=b")
    }

    @Test func listsRoutes() {
        let router = HTTPRouter { routes in
            routes.register("POST", "/a/{x}") { _ in .empty(200) }
            routes.register("GET", "/a/{x}") { _ in .empty(200) }
            routes.register("GET", "/b") { _ in .empty(200) }
        }
        #expect(router.routes.map { "\($0.method) \($0.pattern)" } == ["GET /a/{x}", "POST /a/{x}", "GET /b"])
    }
}

@Suite("HTTP1 headers")
struct HTTP1HeadersTests {
    @Test func lowercasedOrderedMultiValued() {
        var headers: HTTPHeaders = ["Content-Type": "text/plain", "X-A": "1"]
        headers.add(name: "x-a", value: "2")
        headers.add(name: "X-B", value: "3")
        #expect(headers["x-a"] == "1")
        #expect(headers["X-A"] == "1")
        #expect(headers.values(for: "X-a") == ["1", "2"])
        #expect(headers.map(\.name) == ["content-type", "x-a", "x-a", "x-b"])
        #expect(headers.contains("CONTENT-TYPE"))

        headers.replaceOrAdd(name: "X-A", value: "9")
        #expect(headers.values(for: "x-a") == ["9"])
        #expect(headers.map(\.name) == ["content-type", "x-a", "x-b"])

        headers["x-b"] = nil
        headers["X-C"] = "4"
        #expect(headers.map(\.name) == ["content-type", "x-a", "x-c"])
        headers.remove(name: "Content-Type")
        #expect(headers.count == 2)
        #expect(headers["missing"] == nil)
        #expect(headers.values(for: "missing") == [])
    }
}
