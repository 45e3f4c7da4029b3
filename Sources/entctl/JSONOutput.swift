import Encodings
import EntitlementsProto
import ProtoJSON
import ProtobufWire
import StandardServices

/// What `--json` prints: one JSON value per response or event.
protocol JSONEncodable {
    var json: JSONValue { get }
}

/// A message of the contract, printed as protobuf's JSON mapping (lowerCamelCase names, enums by name, 64-bit
/// integers as strings, timestamps in RFC 3339) by the schema the server embeds: a new field needs no code here.
/// Every field without presence is written, default or not, so a script finds each by name; message fields only
/// when set (an absent `expiresAt` means "never").
protocol NamedProtoMessage: ProtoMessage, JSONEncodable {}

extension NamedProtoMessage {
    /// The fully-qualified name in `Protos/`: each Swift type is named as its message (`entitlements.v1.Customer`).
    static var protoName: String { "entitlements.v1.\(Self.self)" }

    var json: JSONValue {
        do {
            return .raw(
                try EmbeddedDescriptors.messageSchema.json(
                    fromBinary: serializedBytes(), messageName: Self.protoName, emittingDefaults: true))
        } catch {
            // The bytes are this message's own encoding: only a name the schema lacks fails, a build defect.
            preconditionFailure("\(Self.protoName) has no JSON: \(error)")
        }
    }
}

// The responses entctl prints (the messages inside them need nothing).
extension Customer: NamedProtoMessage {}
extension CheckAppStoreSetupResponse: NamedProtoMessage {}
extension CountCustomersResponse: NamedProtoMessage {}
extension DeleteCustomerResponse: NamedProtoMessage {}
extension ExtendSubscriptionResponse: NamedProtoMessage {}
extension FindCustomersResponse: NamedProtoMessage {}
extension GetMetricsResponse: NamedProtoMessage {}
extension GetOfferEligibilityResponse: NamedProtoMessage {}
extension GetTestNotificationStatusResponse: NamedProtoMessage {}
extension Grant: NamedProtoMessage {}
extension IdentifyResponse: NamedProtoMessage {}
extension ListAuditEventsResponse: NamedProtoMessage {}
extension ListCustomerEventsResponse: NamedProtoMessage {}
extension ListCustomersResponse: NamedProtoMessage {}
extension ListWebhookDeliveriesResponse: NamedProtoMessage {}
extension LookUpOrderResponse: NamedProtoMessage {}
extension PurchaseResponse: NamedProtoMessage {}
extension ReconcileAppStoreResponse: NamedProtoMessage {}
extension RedeliverWebhooksResponse: NamedProtoMessage {}
extension RedemptionCode: NamedProtoMessage {}
extension RefreshStorePurchaseResponse: NamedProtoMessage {}
extension RestoreResponse: NamedProtoMessage {}
extension SendConsumptionInfoResponse: NamedProtoMessage {}
extension SendTestWebhookResponse: NamedProtoMessage {}
extension SetAttributesResponse: NamedProtoMessage {}
extension SignOfferResponse: NamedProtoMessage {}
extension StatusEvent: NamedProtoMessage {}
extension SyncStatusResponse: NamedProtoMessage {}
extension TrustDescription: NamedProtoMessage {}
