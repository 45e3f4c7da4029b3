import EntitlementsProto
import ProtobufWire

/// libFuzzer target: every message of the contract decodes arbitrary bytes without crashing, and what decodes
/// re-encodes to bytes that decode to the same value and encode the same again (unknown fields included).
private func roundTrip<M: ProtoMessage>(_: M.Type, _ bytes: [UInt8]) {
    guard let first = try? M(serializedBytes: bytes) else { return }
    let encoded = first.serializedBytes()
    guard let second = try? M(serializedBytes: encoded) else {
        fatalError("\(M.self): its own encoding does not decode: \(encoded)")
    }
    guard second == first, second.serializedBytes() == encoded else {
        fatalError("\(M.self): the round trip changed the value or its encoding")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProtobuf(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    // The first byte picks the message; the rest is its encoding.
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    switch data[0] % 16 {
    case 0: roundTrip(CustomerStatus.self, bytes)
    case 1: roundTrip(SubscriptionStatus.self, bytes)
    case 2: roundTrip(StatusEvent.self, bytes)
    case 3: roundTrip(IdentifyRequest.self, bytes)
    case 4: roundTrip(IdentifyResponse.self, bytes)
    case 5: roundTrip(SyncStatusRequest.self, bytes)
    case 6: roundTrip(PurchaseRequest.self, bytes)
    case 7: roundTrip(PurchaseResponse.self, bytes)
    case 8: roundTrip(RestoreRequest.self, bytes)
    case 9: roundTrip(RestoreResponse.self, bytes)
    case 10: roundTrip(StreamStatusRequest.self, bytes)
    case 11: roundTrip(GrantEntitlementRequest.self, bytes)
    case 12: roundTrip(Customer.self, bytes)
    case 13: roundTrip(ListCustomerEventsResponse.self, bytes)
    case 14: roundTrip(PurchaseResult.self, bytes)
    default: roundTrip(Transaction.self, bytes)
    }
    return 0
}
