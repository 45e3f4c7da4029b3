import EntitlementDomain
import EntitlementServices
import Testing

@Suite struct WebhookCapacityTests {
    func delivery(_ tenant: String, _ endpoint: String, _ id: Int64) -> WebhookDelivery {
        WebhookDelivery(
            id: id, tenantID: tenant, endpointID: endpoint, customerID: id, appUserID: "u\(id)", version: 1,
            messageID: "msg_\(id)", type: "customer.grant", body: [], createdAt: UnixTime(milliseconds: 0),
            nextAttemptAt: UnixTime(milliseconds: 0))
    }

    @Test func anEndpointGetsNoMoreThanItsShareAndTheRestStillFit() {
        var capacity = WebhookCapacity(limits: .init(total: 10, perTenant: 6, perEndpoint: 2))
        let hanging = (1...8).map { delivery("a", "slow", $0) }
        let others = [delivery("a", "fast", 20), delivery("b", "hooks", 21)]
        let admitted = capacity.admit(hanging + others)
        #expect(admitted.map(\.id) == [1, 2, 20, 21])
        #expect(capacity.free == 6)
        let saturated = capacity.saturatedEndpoints { $0 == "a" ? ["slow", "fast"] : ["hooks"] }
        #expect(saturated == [WebhookEndpointKey(tenantID: "a", endpointID: "slow")])
    }

    @Test func aTenantAtItsLimitHasEveryEndpointLeftOut() {
        var capacity = WebhookCapacity(limits: .init(total: 10, perTenant: 2, perEndpoint: 2))
        _ = capacity.admit([delivery("a", "x", 1), delivery("a", "y", 2), delivery("a", "z", 3)])
        let saturated = capacity.saturatedEndpoints { $0 == "a" ? ["x", "y", "z"] : [] }
        #expect(saturated.map(\.endpointID) == ["x", "y", "z"])
    }

    @Test func finishingFreesTheSlot() {
        var capacity = WebhookCapacity(limits: .init(total: 1, perTenant: 1, perEndpoint: 1))
        #expect(capacity.admit([delivery("a", "x", 1), delivery("b", "y", 2)]).map(\.id) == [1])
        capacity.finish(WebhookEndpointKey(tenantID: "a", endpointID: "x"))
        #expect(capacity.free == 1)
        #expect(capacity.admit([delivery("b", "y", 2)]).map(\.id) == [2])
    }

    @Test func limitsAreKeptConsistent() {
        let limits = WebhookCapacity.Limits(total: 4, perTenant: 10, perEndpoint: 20)
        #expect(limits.perTenant == 4 && limits.perEndpoint == 4)
        #expect(WebhookCapacity.Limits(total: 0, perTenant: 0, perEndpoint: 0).total == 1)
    }
}
