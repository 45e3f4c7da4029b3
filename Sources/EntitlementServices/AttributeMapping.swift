import EntitlementDomain
import EntitlementsProto
import ProtobufWire

/// Customer attributes between the API's messages and the domain.
extension AttributeChange {
    init(_ request: SetAttributesRequest) {
        self.init(set: request.attributes.map { ($0.key, $0.value) }, unset: request.unsetKeys)
    }
}

extension Attribute {
    init(_ attribute: CustomerAttribute) {
        self.init(key: attribute.key, value: attribute.value, updatedAt: ProtoTimestamp(attribute.updatedAt))
    }
}

extension SetAttributesResponse {
    /// The outcome, listing the attributes `shown` accepts the key of.
    init(_ outcome: AttributeOutcome, shown: (String) -> Bool = { _ in true }) {
        self.init(
            attributes: outcome.attributes.filter { shown($0.key) }.map(Attribute.init), changedKeys: outcome.changedKeys,
            appUserID: outcome.appUserID)
    }
}
