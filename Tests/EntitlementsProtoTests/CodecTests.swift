import EntitlementsProto
import ProtobufWire
import Testing

/// Properties of the codecs that need no Python.
@Suite struct CodecTests {
    @Test(arguments: Fixtures.all.map(\.name))
    func swiftEncodingDecodesBackToTheSameValue(name: String) throws {
        let fixture = try #require(Fixtures.all.first { $0.name == name })
        let bytes = fixture.swiftEncoding()
        let withoutUnknowns = try fixture.decodeAndReencode(bytes).reencoded
        #expect(withoutUnknowns == bytes)
        if name.hasSuffix("#empty") {
            #expect(bytes.isEmpty, "a default message encodes to zero bytes")
        }
    }

    @Test func presentButEmptyMessageIsWritten() throws {
        let bytes = IdentifyResponse(customer: CustomerStatus()).serializedBytes()
        #expect(bytes == [0x0A, 0x00])
        #expect(try IdentifyResponse(serializedBytes: bytes).customer == CustomerStatus())
        #expect(try IdentifyResponse(serializedBytes: []).customer == nil)
    }

    @Test func oneofKeepsTheLastCaseOnTheWire() throws {
        let request = try PurchaseRequest(serializedBytes: [0x12, 0x00, 0x1A, 0x02, 0x0A, 0x00])
        #expect(request.purchase == .playStore(PlayStorePurchase()))
        #expect(request.serializedBytes() == [0x1A, 0x00])
    }

    /// proto3: a singular message field that appears twice merges (later scalars win, repeated fields append), the
    /// same as decoding each occurrence's bytes one after the other; a oneof member seen again merges too.
    @Test func aMessageFieldSeenTwiceMerges() throws {
        let first = SyncStatusResponse(
            customer: CustomerStatus(
                appUserID: "alice", status: SubscriptionStatus(state: .active, entitlements: [
                    ActiveEntitlement(id: "pro", expiresAt: ProtoTimestamp(seconds: 10, nanos: 0)),
                ]), version: 3))
        let second = SyncStatusResponse(
            customer: CustomerStatus(
                status: SubscriptionStatus(entitlements: [ActiveEntitlement(id: "premium")]), version: 4,
                serverTime: ProtoTimestamp(seconds: 99, nanos: 5)))
        let merged = try SyncStatusResponse(serializedBytes: first.serializedBytes() + second.serializedBytes())
        let customer = try #require(merged.customer)
        #expect(customer.appUserID == "alice")
        #expect(customer.version == 4)
        #expect(customer.serverTime == ProtoTimestamp(seconds: 99, nanos: 5))
        #expect(customer.status?.state == .active)
        #expect(customer.status?.entitlements.map(\.id) == ["pro", "premium"])
        #expect(customer.status?.entitlements.first?.expiresAt == ProtoTimestamp(seconds: 10, nanos: 0))

        let purchase = try PurchaseRequest(
            serializedBytes: PurchaseRequest(appUserID: "a", purchase: .appStore(AppStorePurchase(signedTransaction: "x")))
                .serializedBytes()
                + PurchaseRequest(purchase: .appStore(AppStorePurchase())).serializedBytes())
        #expect(purchase.purchase == .appStore(AppStorePurchase(signedTransaction: "x")))
    }

    @Test func unknownEnumValueSurvives() throws {
        let status = try SubscriptionStatus(serializedBytes: [0x08, 0x63])
        #expect(status.state == SubscriptionStatus.State(rawValue: 99))
        #expect(status.state != .active)
        #expect(status.serializedBytes() == [0x08, 0x63])
    }
}
