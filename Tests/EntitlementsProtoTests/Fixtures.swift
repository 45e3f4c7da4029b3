import Encodings
import EntitlementsProto
import ProtobufWire

/// One test value per case, built exactly as `Resources/roundtrip.py` builds it (change both
/// together). `withUnknownFields` appends ``Fixtures/unknown`` to the message and to the nested
/// messages Python appends it to.
struct Fixture: Sendable {
    let name: String
    /// Decodes bytes into the case's type; returns the Swift re-encoding and, when the decoded
    /// value differs from the expected one (unknown fields included), both values.
    let decodeAndReencode: @Sendable ([UInt8]) throws -> (reencoded: [UInt8], mismatch: String?)
    /// Swift's encoding of the case without unknown fields.
    let swiftEncoding: @Sendable () -> [UInt8]

    init<M: ProtoMessage>(_ name: String, _ build: @escaping @Sendable (_ withUnknownFields: Bool) -> M) {
        self.name = name
        decodeAndReencode = { bytes in
            let decoded = try M(serializedBytes: bytes)
            let expected = build(true)
            return (decoded.serializedBytes(), decoded == expected ? nil : "decoded \(decoded)\nexpected \(expected)")
        }
        swiftEncoding = { build(false).serializedBytes() }
    }

    /// The default instance; Python adds unknown fields to it when asked, like everywhere else.
    static func empty<M: ProtoMessage>(_ type: M.Type) -> Fixture {
        Fixture("\(M.self)#empty") { Fixtures.unk(M(), $0) }
    }
}

enum Fixtures {
    /// Unknown fields 1999 (varint 7), 2000 (bytes "abc") and 2001 (fixed32), as in roundtrip.py.
    static let unknown = hexBytes("f87c07" + "827d03616263" + "8d7d01020304")

    static let all: [Fixture] = [
        Fixture("CustomerStatus", customerStatus),
        Fixture("CustomerStatus#extremes", customerStatusExtremes),
        Fixture("SubscriptionStatus") { subscriptionStatus($0) },
        Fixture("SubscriptionStatus#unknownState") { subscriptionStatus($0, state: .init(rawValue: 99)) },
        Fixture("ActiveEntitlement") { activeEntitlement($0, 0) },
        Fixture("ActiveEntitlement#unknownStore") { activeEntitlement($0, 1) },
        Fixture("StatusEvent") { statusEvent($0) },
        Fixture("StatusEvent#unknownKind") { statusEvent($0, kind: .init(rawValue: 99)) },
        Fixture("StreamStatusRequest") { unk(StreamStatusRequest(appUserID: "user-1", afterVersion: 7), $0) },
        Fixture("IdentifyRequest") { unk(IdentifyRequest(appUserID: "user-1", anonymousID: "$anon:1"), $0) },
        Fixture("IdentifyResponse") {
            unk(IdentifyResponse(customer: customerStatus($0), created: true, merged: true), $0)
        },
        Fixture("IdentifyResponse#emptyCustomer") { unk(IdentifyResponse(customer: CustomerStatus()), $0) },
        Fixture("SyncStatusRequest") { unk(SyncStatusRequest(appUserID: "user-1"), $0) },
        Fixture("SyncStatusResponse") { unk(SyncStatusResponse(customer: customerStatus($0)), $0) },
        Fixture("PurchaseRequest#appStore") {
            unk(PurchaseRequest(appUserID: "user-1", purchase: .appStore(appStorePurchase($0))), $0)
        },
        Fixture("PurchaseRequest#playStore") {
            unk(PurchaseRequest(appUserID: "user-1", purchase: .playStore(playStorePurchase($0))), $0)
        },
        Fixture("PurchaseRequest#webRedemption") {
            unk(PurchaseRequest(appUserID: "user-1", purchase: .webRedemption(unk(WebRedemption(code: "rc_abc"), $0))), $0)
        },
        Fixture("WebRedemption") { unk(WebRedemption(code: "rc_abc"), $0) },
        Fixture("GetRedemptionCodeRequest") { unk(GetRedemptionCodeRequest(stripeID: "cs_test_1"), $0) },
        Fixture("RedemptionCode") { u in
            var code = RedemptionCode()
            code.code = "rc_abc"
            code.expiresAt = ts(1_700_000_000, 0, u)
            code.transaction = transaction(u)
            return unk(code, u)
        },
        Fixture("SendTestWebhookRequest") { unk(SendTestWebhookRequest(endpointID: "backend"), $0) },
        Fixture("SendTestWebhookResponse") { u in
            var response = SendTestWebhookResponse()
            response.webhookID = "msg_abc"
            response.delivered = true
            response.statusCode = 204
            response.error = "none"
            response.duration = unk(ProtoDuration(seconds: 1, nanos: 500_000_000), u)
            return unk(response, u)
        },
        Fixture("ListWebhookDeliveriesRequest") { u in
            unk(
                ListWebhookDeliveriesRequest(
                    endpointID: "backend", appUserID: "user-1", state: .failed, createdAfter: ts(1_700_000_000, 0, u),
                    createdBefore: ts(1_700_000_100, 5, u), pageSize: 20, pageToken: "d42"), u)
        },
        Fixture("ListWebhookDeliveriesResponse") { u in
            unk(ListWebhookDeliveriesResponse(deliveries: [webhookDelivery(u)], nextPageToken: "d41"), u)
        },
        Fixture("WebhookDelivery") { webhookDelivery($0) },
        Fixture("RedeliverWebhooksRequest") { u in
            unk(
                RedeliverWebhooksRequest(
                    deliveryID: 42, endpointID: "backend", createdAfter: ts(1_700_000_000, 0, u),
                    createdBefore: ts(1_700_000_100, 0, u)), u)
        },
        Fixture("RedeliverWebhooksResponse") { unk(RedeliverWebhooksResponse(requeued: 3), $0) },
        Fixture("PurchaseRequest#emptyAppStore") {
            unk(PurchaseRequest(appUserID: "user-1", purchase: .appStore(AppStorePurchase())), $0)
        },
        Fixture("AppStorePurchase") { appStorePurchase($0) },
        Fixture("PlayStorePurchase") { playStorePurchase($0) },
        Fixture("PurchaseResponse") {
            unk(PurchaseResponse(customer: customerStatus($0), transferredFromAppUserID: "user-0",
                                 result: purchaseResult($0)), $0)
        },
        Fixture("PurchaseResult") { purchaseResult($0) },
        Fixture("PurchaseResult#unknownEnums") { purchaseResult($0, 1) },
        Fixture("RestoreRequest") { u in
            unk(RestoreRequest(appUserID: "user-1", appStore: (0..<2).map { appStorePurchase(u, $0) },
                               playStore: (0..<2).map { playStorePurchase(u, $0) },
                               appStoreTransactionIDs: ["2000000000000001", ""]), u)
        },
        Fixture("RestoreResponse") {
            unk(RestoreResponse(customer: customerStatus($0), transferredFromAppUserIDs: ["user-a", "user-b"],
                                results: [purchaseResult($0, 0), purchaseResult($0, 1)],
                                appStoreHistories: [appStoreHistoryResult($0)]), $0)
        },
        Fixture("AppStoreHistoryResult") { appStoreHistoryResult($0) },
        Fixture("GrantEntitlementRequest", grantEntitlementRequest),
        Fixture("Grant") { grant($0) },
        Fixture("Grant#epochTimestamps") { unk(Grant(grantID: "grant-epoch", startsAt: ProtoTimestamp()), $0) },
        Fixture("RevokeGrantRequest") { unk(RevokeGrantRequest(grantID: "grant-0", reason: "mistake"), $0) },
        Fixture("GetCustomerRequest") { unk(GetCustomerRequest(appUserID: "user-1"), $0) },
        Fixture("Customer", customer),
        Fixture("Transaction") { transaction($0) },
        Fixture("Transaction#unknownEnums") { transaction($0, 1) },
        Fixture("ListCustomerEventsRequest") {
            unk(ListCustomerEventsRequest(appUserID: "user-1", pageSize: 50, pageToken: "page-2"), $0)
        },
        Fixture("ListCustomerEventsRequest#negativePageSize") { unk(ListCustomerEventsRequest(pageSize: -5), $0) },
        Fixture("ListCustomerEventsResponse") { u in
            unk(ListCustomerEventsResponse(events: (0..<2).map { customerEvent(u, $0) }, nextPageToken: "page-2"), u)
        },
        Fixture("CustomerEvent") { customerEvent($0) },
        Fixture("CustomerEvent#unknownEnums") { customerEvent($0, 1) },
        Fixture("RefreshStorePurchaseRequest") {
            unk(RefreshStorePurchaseRequest(store: .playStore, purchaseID: "token-1", productID: "premium"), $0)
        },
        Fixture("RefreshStorePurchaseResponse") { u in
            var response = RefreshStorePurchaseResponse()
            response.transaction = transaction(u)
            response.changed = true
            response.customer = customerStatus(u)
            return unk(response, u)
        },
        .empty(RefreshStorePurchaseRequest.self), .empty(RefreshStorePurchaseResponse.self),
        .empty(CustomerStatus.self), .empty(SubscriptionStatus.self), .empty(ActiveEntitlement.self),
        .empty(StatusEvent.self), .empty(StreamStatusRequest.self), .empty(IdentifyRequest.self),
        .empty(IdentifyResponse.self), .empty(SyncStatusRequest.self), .empty(SyncStatusResponse.self),
        .empty(PurchaseRequest.self), .empty(AppStorePurchase.self), .empty(PlayStorePurchase.self),
        .empty(PurchaseResponse.self), .empty(PurchaseResult.self), .empty(RestoreRequest.self), .empty(RestoreResponse.self),
        .empty(AppStoreHistoryResult.self),
        .empty(GrantEntitlementRequest.self), .empty(Grant.self), .empty(RevokeGrantRequest.self),
        .empty(GetCustomerRequest.self), .empty(Customer.self), .empty(Transaction.self),
        .empty(ListCustomerEventsRequest.self), .empty(ListCustomerEventsResponse.self), .empty(CustomerEvent.self),
        .empty(WebRedemption.self), .empty(GetRedemptionCodeRequest.self), .empty(RedemptionCode.self),
        .empty(SendTestWebhookRequest.self), .empty(SendTestWebhookResponse.self),
        .empty(ListWebhookDeliveriesRequest.self), .empty(ListWebhookDeliveriesResponse.self),
        .empty(WebhookDelivery.self), .empty(RedeliverWebhooksRequest.self), .empty(RedeliverWebhooksResponse.self),
    ] + subscriberQueries + appStoreAdmin + metrics + attributes + privacy + offers

    static func webhookDelivery(_ u: Bool) -> WebhookDelivery {
        var delivery = WebhookDelivery()
        delivery.deliveryID = 42
        delivery.endpointID = "backend"
        delivery.webhookID = "msg_abc"
        delivery.type = "customer.renewal"
        delivery.state = .pending
        delivery.appUserID = "user-1"
        delivery.version = 7
        delivery.createdAt = ts(1_700_000_000, 0, u)
        delivery.attempts = 2
        delivery.lastAttemptAt = ts(1_700_000_010, 0, u)
        delivery.lastStatusCode = 503
        delivery.lastError = "HTTP 503: busy"
        delivery.nextAttemptAt = ts(1_700_000_310, 0, u)
        delivery.deliveredAt = ts(1_700_000_400, 0, u)
        delivery.body = "{\"type\":\"customer.renewal\"}"
        return unk(delivery, u)
    }

    static func unk<M: ProtoMessage>(_ message: M, _ withUnknownFields: Bool) -> M {
        var message = message
        if withUnknownFields {
            message.unknownFields = unknown
        }
        return message
    }

    static func ts(_ seconds: Int64, _ nanos: Int32, _ u: Bool) -> ProtoTimestamp {
        unk(ProtoTimestamp(seconds: seconds, nanos: nanos), u)
    }

    static func activeEntitlement(_ u: Bool, _ i: Int) -> ActiveEntitlement {
        unk(ActiveEntitlement(
            id: "pro-\(i)", source: i == 0 ? .appStore : Store(rawValue: 99), productID: "com.example.pro.\(i)",
            expiresAt: ts(1_700_000_000 + Int64(i), 250_000_000, u), willRenew: true, inGracePeriod: true,
            inBillingRetry: true), u)
    }

    static func subscriptionStatus(_ u: Bool, state: SubscriptionStatus.State = .active) -> SubscriptionStatus {
        unk(SubscriptionStatus(state: state, entitlements: [activeEntitlement(u, 0), activeEntitlement(u, 1)]), u)
    }

    static func customerStatus(_ u: Bool) -> CustomerStatus {
        var status = CustomerStatus(
            appUserID: "user-1", status: subscriptionStatus(u), version: 42, serverTime: ts(1_700_000_100, 5, u))
        status.signedStatus = "eyJhbGciOiJFUzI1NiJ9.e30.c2ln"
        return unk(status, u)
    }

    static func customerStatusExtremes(_ u: Bool) -> CustomerStatus {
        unk(CustomerStatus(appUserID: "ユーザー✓", status: unk(SubscriptionStatus(state: .inactive), u),
                           version: .max, serverTime: ts(-62_135_596_800, 999_999_999, u)), u)
    }

    static func statusEvent(_ u: Bool, kind: StatusEvent.Kind = .statusChanged) -> StatusEvent {
        unk(StatusEvent(kind: kind, customer: customerStatus(u), reason: "app store renewal"), u)
    }

    static func appStorePurchase(_ u: Bool, _ i: Int = 0) -> AppStorePurchase {
        unk(AppStorePurchase(signedTransaction: "eyJhbGciOiJFUzI1NiJ9.payload-\(i).signature", transactionID: "200000000\(i)"), u)
    }

    static func playStorePurchase(_ u: Bool, _ i: Int = 0) -> PlayStorePurchase {
        unk(PlayStorePurchase(productID: "pro_monthly_\(i)", purchaseToken: "token-\(i)"), u)
    }

    static func grantEntitlementRequest(_ u: Bool) -> GrantEntitlementRequest {
        unk(GrantEntitlementRequest(
            appUserID: "user-1", entitlementID: "pro", expiresAt: ts(1_800_000_000, 0, u),
            duration: unk(ProtoDuration(seconds: -86_400, nanos: -5), u), reason: "support ticket 42",
            idempotencyKey: "key-1"), u)
    }

    static func grant(_ u: Bool, _ i: Int = 0) -> Grant {
        unk(Grant(
            grantID: "grant-\(i)", appUserID: "user-1", entitlementID: "pro", startsAt: ts(1_700_000_000, 1, u),
            expiresAt: ts(1_800_000_000, 2, u), revokedAt: ts(1_750_000_000, 3, u), reason: "support",
            revocationReason: "mistake"), u)
    }

    static func transaction(_ u: Bool, _ i: Int = 0) -> Transaction {
        let known = i == 0
        return unk(Transaction(
            store: known ? .playStore : Store(rawValue: 99), productID: "pro_yearly_\(i)",
            originalTransactionID: "1000-\(i)", transactionID: "2000-\(i)",
            environment: known ? .sandbox : .init(rawValue: 99), purchasedAt: ts(1_700_000_000, 0, u),
            originalPurchaseAt: ts(1_600_000_000, 0, u), expiresAt: ts(1_731_536_000, 0, u),
            revokedAt: ts(1_710_000_000, 0, u), revocationReason: "REFUND_FULL", ownerAppUserID: "user-1",
            ownership: known ? .familyShared : .init(rawValue: 99), willRenew: true, inGracePeriod: true,
            inBillingRetry: true, renewalProductID: "pro_monthly_\(i)")
            .with {
                $0.supersededBy = "token-new-\(i)"
                $0.replaces = "token-old-\(i)"
                $0.acknowledgement = known ? .failed : .init(rawValue: 99)
                $0.acknowledgementAttempts = Int32(40 + i)
                $0.acknowledgementError = "Google could not answer (503)"
                $0.suspended = true
            }, u)
    }

    static func appStoreHistoryResult(_ u: Bool) -> AppStoreHistoryResult {
        var result = AppStoreHistoryResult()
        result.transactionID = "2000000000000001"
        result.environment = .sandbox
        result.transactionsFound = 41
        result.purchases = [purchaseResult(u, 0), purchaseResult(u, 1)]
        return unk(result, u)
    }

    static func purchaseResult(_ u: Bool, _ i: Int = 0) -> PurchaseResult {
        let known = i == 0
        var result = PurchaseResult()
        result.store = known ? .appStore : Store(rawValue: 99)
        result.productID = "com.example.pro.\(i)"
        result.originalTransactionID = "1000-\(i)"
        result.transactionID = "2000-\(i)"
        result.environment = known ? .localTesting : StoreEnvironment(rawValue: 99)
        result.purchasedAt = ts(1_700_000_000, 0, u)
        result.expiresAt = ts(1_731_536_000, 0, u)
        result.revokedAt = ts(1_710_000_000, 0, u)
        result.outcome = known ? .olderThanStored : PurchaseResult.Outcome(rawValue: 99)
        result.active = true
        result.entitlementIDs = ["pro", ""]
        result.transferredFromAppUserID = "user-0"
        result.claimed = true
        return unk(result, u)
    }

    static func customer(_ u: Bool) -> Customer {
        unk(Customer(customer: customerStatus(u), aliases: ["$anon:1", "$anon:2"],
                     grants: [grant(u, 0), grant(u, 1)], transactions: [transaction(u, 0), transaction(u, 1)]), u)
    }

    static func customerEvent(_ u: Bool, _ i: Int = 0) -> CustomerEvent {
        let known = i == 0
        return unk(CustomerEvent(
            version: 10 + UInt64(i), cause: known ? .grant : .init(rawValue: 99),
            change: known ? .statusChanged : .init(rawValue: 99), reason: "support ticket 42",
            occurredAt: ts(1_700_000_000 + Int64(i), 0, u), status: subscriptionStatus(u), relatedAppUserID: "user-0",
            referenceID: "grant-\(i)", keyName: "support-ana"), u)
    }
}

func hexBytes(_ string: String) -> [UInt8] { Hex.decode(string)! }

func hexString(_ bytes: [UInt8]) -> String { Hex.encode(bytes) }

extension Transaction {
    /// A copy with `change` applied, for fixtures of fields the initializer leaves out.
    fileprivate func with(_ change: (inout Transaction) -> Void) -> Transaction {
        var copy = self
        change(&copy)
        return copy
    }
}
