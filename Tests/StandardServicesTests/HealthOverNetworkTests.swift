import EntitlementClient
import HTTP2Transport
import RPCCore
import StandardServices
import Testing
import TestSupport

/// Health through the real transport and the typed Swift client.
@Suite struct HealthOverNetworkTests {
    @Test func checkReportsServingAndNotFound() async throws {
        let health = HealthService()
        let server = try RunningServer(services: [health])
        defer { server.stop() }
        let client = try EntitlementClient(
            configuration: GRPCClientConfiguration(host: "127.0.0.1", port: server.port), defaultTimeout: .seconds(60))
        #expect(try await client.checkHealth() == .serving)
        let error = await #expect(throws: RPCError.self) { try await client.checkHealth(service: "no.such.Service") }
        #expect(error?.code == .notFound)
    }

    @Test func watchStreamsChangesAndStopsWhenTheClientLeaves() async throws {
        let health = HealthService(statuses: ["": .serving, "svc": .serving])
        let server = try RunningServer(services: [health])
        defer { server.stop() }
        // 60 s budgets: the whole suite shares two cores in CI, where the client's 10 s default starved.
        let client = try EntitlementClient(
            configuration: GRPCClientConfiguration(host: "127.0.0.1", port: server.port), defaultTimeout: .seconds(60))
        let watch = MethodDescriptor(service: HealthService.serviceName, method: "Watch")
        let updates = client.serverStreaming(
            watch, HealthCheckRequest(service: "svc"), as: HealthCheckResponse.self, timeout: .seconds(60))
        var seen: [HealthCheckResponse.ServingStatus] = []
        for try await update in updates {
            seen.append(update.status)
            if seen.count == 1 { health.setStatus(.notServing, forService: "svc") }
            if seen.count == 2 { break }
        }
        #expect(seen == [.serving, .notServing])
        // The connection still serves new calls after the watcher went away.
        #expect(try await client.checkHealth(service: "svc") == .notServing)
    }
}
