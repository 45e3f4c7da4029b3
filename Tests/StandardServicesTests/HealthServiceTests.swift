import ProtobufWire
import RPCCore
import StandardServices
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct HealthServiceTests {
    static let checkPath = "/grpc.health.v1.Health/Check"
    static let watchPath = "/grpc.health.v1.Health/Watch"

    func router(_ health: HealthService) -> RPCRouter {
        var router = RPCRouter()
        router.register([health])
        return router
    }

    func check(_ router: RPCRouter, _ service: String) async throws -> HealthCheckResponse.ServingStatus {
        let response: HealthCheckResponse = try await InProcessCall.unary(
            router: router, path: Self.checkPath, request: HealthCheckRequest(service: service)
        )
        return response.status
    }

    func watch(_ router: RPCRouter, _ service: String) -> InProcessCall {
        let call = InProcessCall(router: router, path: Self.watchPath)
        call.send(HealthCheckRequest(service: service))
        call.finishSending()
        return call
    }

    func nextStatus(_ call: InProcessCall) async throws -> HealthCheckResponse.ServingStatus? {
        try await call.nextMessage(as: HealthCheckResponse.self)?.status
    }

    @Test func registersCheckAndWatch() {
        let router = router(HealthService())
        #expect(router.serviceNames == ["grpc.health.v1.Health"])
        #expect(router.handler(forPath: Self.checkPath)?.kind == .unary)
        #expect(router.handler(forPath: Self.watchPath)?.kind == .serverStreaming)
    }

    @Test func checkAnswersKnownServices() async throws {
        let health = HealthService()
        health.setStatus(.notServing, forService: "entitlements.v1.EntitlementService")
        let router = router(health)
        #expect(try await check(router, "") == .serving)
        #expect(try await check(router, "entitlements.v1.EntitlementService") == .notServing)
        health.setStatus(.serving, forService: "entitlements.v1.EntitlementService")
        #expect(try await check(router, "entitlements.v1.EntitlementService") == .serving)
    }

    @Test func reportsEveryServiceOfTheRouterAsServing() async throws {
        struct Echo: RPCService {
            func register(on router: inout RPCRouter) {
                router.register(MethodDescriptor(service: "test.Echo", method: "Say"), RPCHandler(kind: .unary) { _, _ in })
            }
        }
        let health = HealthService()
        var router = RPCRouter()
        router.register([health, Echo()])
        health.reportServing(servicesOf: router)
        #expect(try await check(router, "test.Echo") == .serving)
        #expect(try await check(router, HealthService.serviceName) == .serving)
        #expect(try await check(router, "") == .serving)
        #expect(health.status(forService: "test.Other") == nil)
        // Shutdown turns every reported service NOT_SERVING, not only the server as a whole.
        health.enterShutdown()
        #expect(try await check(router, "test.Echo") == .notServing)
    }

    @Test func checkOfUnknownServiceIsNotFound() async {
        let health = HealthService(statuses: [:])
        let result = await InProcessCall.run(
            router: router(health), path: Self.checkPath, requests: [HealthCheckRequest(service: "nope.Service")]
        )
        #expect(result.status.code == .notFound)
        #expect(result.status.message.contains("nope.Service"))
        #expect(result.messages.isEmpty)
        #expect(throws: RPCError.self) { try health.check(HealthCheckRequest(service: "")) }
    }

    @Test func watchSendsCurrentStatusThenChanges() async throws {
        let health = HealthService(statuses: ["svc": .serving])
        let call = watch(router(health), "svc")
        #expect(try await nextStatus(call) == .serving)

        health.setStatus(.notServing, forService: "svc")
        #expect(try await nextStatus(call) == .notServing)
        health.setStatus(.serving, forService: "other")  // another service: no message
        health.setStatus(.notServing, forService: "svc")  // no change: no message
        health.setStatus(.serving, forService: "svc")
        #expect(try await nextStatus(call) == .serving)
        #expect(call.sink.messages.count == 3)
        #expect(!call.sink.isFinished)

        call.cancel()
        #expect(await call.status().code == .cancelled)
        await call.waitForHandler()
    }

    @Test func watchOfUnknownServiceStaysOpenUntilItIsKnown() async throws {
        let health = HealthService()
        let call = watch(router(health), "late.Service")
        #expect(try await nextStatus(call) == .serviceUnknown)
        try await Task.sleep(for: .milliseconds(20))
        #expect(!call.sink.isFinished)

        health.setStatus(.serving, forService: "late.Service")
        #expect(try await nextStatus(call) == .serving)
        call.cancel()
        await call.waitForHandler()
    }

    @Test func slowWatcherGetsOnlyTheLatestStatus() async throws {
        let health = HealthService(statuses: ["svc": .serving])
        let call = watch(router(health), "svc")
        #expect(try await nextStatus(call) == .serving)

        // The client stops reading: the watcher blocks sending NOT_SERVING...
        call.sink.pauseSending()
        health.setStatus(.notServing, forService: "svc")
        try await waitUntil { call.sink.suspendedSendCount == 1 }

        // ...while a thousand changes pile up; only the last one may be kept.
        for round in 0..<1000 {
            health.setStatus(round.isMultiple(of: 2) ? .serving : .unknown, forService: "svc")
        }
        health.setStatus(.serving, forService: "svc")

        call.sink.resumeSending()
        #expect(try await nextStatus(call) == .notServing)
        #expect(try await nextStatus(call) == .serving)
        try await Task.sleep(for: .milliseconds(50))
        #expect(call.sink.messages.count == 3)
        call.cancel()
        await call.waitForHandler()
    }

    @Test func manyWatchersAllSeeTheChange() async throws {
        let health = HealthService()
        let router = router(health)
        let calls = (0..<20).map { _ in watch(router, "") }
        for call in calls { #expect(try await nextStatus(call) == .serving) }
        health.setStatus(.notServing, forService: "")
        for call in calls {
            #expect(try await nextStatus(call) == .notServing)
            call.cancel()
            await call.waitForHandler()
        }
    }

    @Test func enterShutdownMarksEverythingNotServingAndSticks() async throws {
        let health = HealthService(statuses: ["a": .serving, "b": .serving])
        let router = router(health)
        let call = watch(router, "a")
        #expect(try await nextStatus(call) == .serving)

        health.enterShutdown()
        #expect(try await nextStatus(call) == .notServing)
        for service in ["", "a", "b"] { #expect(try await check(router, service) == .notServing) }

        health.setStatus(.serving, forService: "a")
        #expect(health.status(forService: "a") == .notServing)
        #expect(health.status(forService: "c") == nil)
        call.cancel()
        await call.waitForHandler()
    }

    @Test func messagesRoundTrip() throws {
        let request = HealthCheckRequest(service: "x.Y")
        #expect(request.serializedBytes() == [0x0A, 0x03] + Array("x.Y".utf8))
        #expect(try HealthCheckRequest(serializedBytes: request.serializedBytes()) == request)

        let response = HealthCheckResponse(status: .serviceUnknown)
        #expect(response.serializedBytes() == [0x08, 0x03])
        #expect(HealthCheckResponse(status: .unknown).serializedBytes().isEmpty)
        // Unknown enum values and unknown fields survive.
        let future = try HealthCheckResponse(serializedBytes: [0x08, 0x07, 0x10, 0x01])
        #expect(future.status.rawValue == 7)
        #expect(future.serializedBytes() == [0x08, 0x07, 0x10, 0x01])
    }
}

/// Polls `condition` until it holds, failing after about two seconds.
func waitUntil(
    _ condition: () -> Bool,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    for _ in 0..<400 {
        if condition() { return }
        try await Task.sleep(for: .milliseconds(5))
    }
    Issue.record("condition never became true", sourceLocation: sourceLocation)
}
