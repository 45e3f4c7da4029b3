import EntitlementsProto
import ProtoJSON
import ProtobufWire
import StandardServices

/// A contract enum, named by the schema the server embeds, for both output formats and for options that take a
/// value's name. A value this build does not know (added to the contract later) has no name: it prints as its
/// number, which is also what proto3 JSON expects.
protocol NamedProtoEnum: ProtoEnum {}

extension NamedProtoEnum {
    /// The enum in `Protos/`: each Swift type is named and nested as its enum (`SubscriptionStatus.State` is
    /// `entitlements.v1.SubscriptionStatus.State`).
    private static var schema: EnumType? {
        let swiftName = String(reflecting: Self.self)
        let nested = swiftName.drop { $0 != "." }.dropFirst()  // without the module
        return EmbeddedDescriptors.messageSchema.enums["entitlements.v1." + nested]
    }

    /// The names of the values in number order, from 0 (the UNSPECIFIED one) up to the last of an unbroken run.
    static var names: [String] {
        guard let schema else { return [] }
        var names: [String] = []
        while let name = schema.name(of: Int32(names.count)) { names.append(name) }
        return names
    }

    var knownName: String? { Self.schema?.name(of: rawValue) }
    var name: String { knownName ?? String(rawValue) }
}

extension SubscriptionStatus.State: NamedProtoEnum {}
extension ListCustomersRequest.State: NamedProtoEnum {}
extension CustomerMatch.MatchedBy: NamedProtoEnum {}
extension AuditEvent.Action: NamedProtoEnum {}
extension Metric: NamedProtoEnum {}
extension MetricInterval: NamedProtoEnum {}
extension MetricDimension: NamedProtoEnum {}
extension Store: NamedProtoEnum {}
extension StatusEvent.Kind: NamedProtoEnum {}
extension UserTokenDescription.Mode: NamedProtoEnum {}
extension CustomerEvent.Cause: NamedProtoEnum {}
extension StoreEnvironment: NamedProtoEnum {}
extension PurchaseResult.Outcome: NamedProtoEnum {}
extension Transaction.Ownership: NamedProtoEnum {}
extension Transaction.Acknowledgement: NamedProtoEnum {}
extension WebhookDeliveryState: NamedProtoEnum {}
extension SendConsumptionInfoRequest.DeliveryStatus: NamedProtoEnum {}
extension IntroductoryOfferEligibility.Reason: NamedProtoEnum {}
