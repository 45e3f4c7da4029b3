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

    @Test func unknownEnumValueSurvives() throws {
        let status = try SubscriptionStatus(serializedBytes: [0x08, 0x63])
        #expect(status.state == SubscriptionStatus.State(rawValue: 99))
        #expect(status.state != .active)
        #expect(status.serializedBytes() == [0x08, 0x63])
    }
}
