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

    /// A response assembled from a customer's cached encoding and a fresh server time reads as one message, when its
    /// length fits one varint byte and when it does not.
    @Test(arguments: [1, 200])
    func syncStatusEncodedAroundACachedCustomer(entitlements: Int) throws {
        let status = SubscriptionStatus(
            state: .active, entitlements: (0..<entitlements).map { ActiveEntitlement(id: "entitlement-\($0)", productID: "p") })
        let cached = CustomerStatus(appUserID: "user-1", status: status, version: 7)
        let serverTime = ProtoTimestamp(seconds: 1_700_000_000, nanos: 5)
        let bytes = SyncStatusResponse.encoding(customer: cached.serializedBytes(), serverTime: serverTime)
        var whole = cached
        whole.serverTime = serverTime
        let decoded = try SyncStatusResponse(serializedBytes: bytes)
        #expect(decoded.customer == whole)
        #expect(decoded.unknownFields.isEmpty && decoded.customer?.unknownFields.isEmpty == true)
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

    @Test func unknownEnumValueSurvives() throws {
        let status = try SubscriptionStatus(serializedBytes: [0x08, 0x63])
        #expect(status.state == SubscriptionStatus.State(rawValue: 99))
        #expect(status.state != .active)
        #expect(status.serializedBytes() == [0x08, 0x63])
    }
}
