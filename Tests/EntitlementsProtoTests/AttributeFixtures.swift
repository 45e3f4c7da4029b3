import EntitlementsProto
import ProtobufWire

/// Customer attribute messages, built exactly as `Resources/roundtrip.py` builds them. The admin service's request
/// and response are type aliases of the app's (the same fields), so they are named by hand.
extension Fixtures {
    static let attributes: [Fixture] = [
        Fixture("Attribute") { attribute($0, 0) },
        Fixture("SetAttributesRequest") { setAttributesRequest($0) },
        Fixture("SetAttributesResponse") { setAttributesResponse($0) },
        Fixture("SetCustomerAttributesRequest") { setAttributesRequest($0) },
        Fixture("SetCustomerAttributesResponse") { setAttributesResponse($0) },
        Fixture("Customer#attributes") { u in
            var customer = customer(u)
            customer.attributes = [attribute(u, 0), attribute(u, 1)]
            return customer
        },
        .empty(Attribute.self), .empty(SetAttributesRequest.self), .empty(SetAttributesResponse.self),
        Fixture("SetCustomerAttributesRequest#empty") { unk(SetCustomerAttributesRequest(), $0) },
        Fixture("SetCustomerAttributesResponse#empty") { unk(SetCustomerAttributesResponse(), $0) },
    ]

    static func attribute(_ u: Bool, _ i: Int) -> Attribute {
        unk(
            Attribute(
                key: i == 0 ? "$email" : "crm_id", value: i == 0 ? "Ana@Example.com" : "4711",
                updatedAt: ts(1_700_000_000 + Int64(i), 0, u)), u)
    }

    static func setAttributesRequest(_ u: Bool) -> SetAttributesRequest {
        unk(
            SetAttributesRequest(
                appUserID: "user-1", attributes: [attribute(u, 0), attribute(u, 1)], unsetKeys: ["plan", "$locale"]), u)
    }

    static func setAttributesResponse(_ u: Bool) -> SetAttributesResponse {
        unk(
            SetAttributesResponse(attributes: [attribute(u, 0)], changedKeys: ["$email", "plan"], appUserID: "user-1"), u)
    }
}
