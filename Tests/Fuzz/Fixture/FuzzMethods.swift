import EntitlementsProto
import ProtobufWire

/// Every method of `EntitlementService` and `AdminService`, each with a maker of valid request messages (the project's
/// own generated types, every field set) whose integers, timestamps and durations sit at the edges of their types, its
/// strings named from the fixture's vocabulary or made of input bytes, its enums known values or any `int32`.
public struct FuzzMethod: Sendable {
    public let path: String
    public let isStreaming: Bool
    /// Whether a public key may call it (EntitlementService); AdminService needs a secret key.
    public let takesPublicKey: Bool
    let make: @Sendable (inout FuzzInput, FuzzServer) -> any ProtoMessage

    /// A request message for the method; now and then the message with bytes after it (unknown fields, or a broken
    /// tail), or the input's bytes alone.
    public func request(_ input: inout FuzzInput, _ server: FuzzServer) -> [UInt8] {
        switch input.choose(16) {
        case 14: return make(&input, server).serializedBytes() + input.bytes(upTo: 16)
        case 15: return input.rest()
        default: return make(&input, server).serializedBytes()
        }
    }

    public static let all: [FuzzMethod] = entitlementService + adminService

    static func method(
        _ service: String, _ name: String, streaming: Bool = false,
        _ make: @escaping @Sendable (inout FuzzInput, FuzzServer) -> any ProtoMessage
    ) -> FuzzMethod {
        FuzzMethod(
            path: "/entitlements.v1.\(service)/\(name)", isStreaming: streaming, takesPublicKey: service == "EntitlementService",
            make: make)
    }

    static let entitlementService: [FuzzMethod] = [
        method("EntitlementService", "Identify") { input, _ in
            IdentifyRequest(
                appUserID: input.string(FuzzVocabulary.appUserIDs),
                anonymousID: input.string(["", "$anon:1", "$anon:2"] + FuzzVocabulary.appUserIDs))
        },
        method("EntitlementService", "SyncStatus") { input, _ in
            var request = SyncStatusRequest()
            request.appUserID = input.string(FuzzVocabulary.appUserIDs)
            return request
        },
        method("EntitlementService", "Purchase") { input, server in
            var request = PurchaseRequest(appUserID: input.string(FuzzVocabulary.appUserIDs))
            switch input.choose(4) {
            case 0: request.purchase = .appStore(appStorePurchase(&input, server))
            case 1: request.purchase = .playStore(playStorePurchase(&input))
            case 2: request.purchase = .webRedemption(WebRedemption(code: input.string(server.seeded + ["rc_" + String(repeating: "0", count: 32)])))
            default: request.purchase = nil
            }
            return request
        },
        method("EntitlementService", "Restore") { input, server in
            var request = RestoreRequest()
            request.appUserID = input.string(FuzzVocabulary.appUserIDs)
            request.appStore = (0..<count(&input)).map { _ in appStorePurchase(&input, server) }
            request.playStore = (0..<count(&input)).map { _ in playStorePurchase(&input) }
            request.appStoreTransactionIDs = (0..<count(&input)).map { _ in input.string(FuzzVocabulary.appStoreTransactionIDs) }
            return request
        },
        method("EntitlementService", "StreamStatus", streaming: true) { input, _ in
            var request = StreamStatusRequest()
            request.appUserID = input.string(FuzzVocabulary.appUserIDs)
            request.afterVersion = input.oneIn(3) ? UInt64(input.choose(8)) : input.uint64()
            return request
        },
    ]

    static let adminService: [FuzzMethod] = [
        method("AdminService", "GrantEntitlement") { input, _ in
            GrantEntitlementRequest(
                appUserID: input.string(FuzzVocabulary.appUserIDs), entitlementID: input.string(FuzzVocabulary.entitlementIDs),
                expiresAt: timestamp(&input), duration: duration(&input), reason: input.string(FuzzVocabulary.reasons),
                idempotencyKey: input.string(["", "key-1", "key-2"]))
        },
        method("AdminService", "RevokeGrant") { input, server in
            var request = RevokeGrantRequest()
            request.grantID = input.string(server.seeded + ["grant-unknown"])
            request.reason = input.string(FuzzVocabulary.reasons)
            return request
        },
        method("AdminService", "GetCustomer") { input, _ in
            var request = GetCustomerRequest()
            request.appUserID = input.string(FuzzVocabulary.appUserIDs)
            return request
        },
        method("AdminService", "ListCustomerEvents") { input, server in
            var request = ListCustomerEventsRequest()
            request.appUserID = input.string(FuzzVocabulary.appUserIDs)
            request.pageSize = input.int32()
            request.pageToken = input.string([""] + server.seeded)
            return request
        },
        method("AdminService", "RefreshStorePurchase") { input, _ in
            var request = RefreshStorePurchaseRequest()
            request.store = Store(rawValue: enumValue(&input, known: 5, plain: 2))
            request.purchaseID = input.string(FuzzVocabulary.playTokens)
            request.productID = input.string([""] + StorePayloads.playProducts)
            return request
        },
        method("AdminService", "GetRedemptionCode") { input, _ in
            GetRedemptionCodeRequest(stripeID: input.string(FuzzVocabulary.stripeIDs))
        },
        method("AdminService", "SendTestWebhook") { input, _ in
            var request = SendTestWebhookRequest()
            request.endpointID = input.string(FuzzVocabulary.webhookEndpoints)
            return request
        },
        method("AdminService", "ListWebhookDeliveries") { input, server in
            var request = ListWebhookDeliveriesRequest()
            request.endpointID = input.string([""] + FuzzVocabulary.webhookEndpoints)
            request.appUserID = input.string([""] + FuzzVocabulary.appUserIDs)
            request.state = WebhookDeliveryState(rawValue: enumValue(&input, known: 5))
            request.createdAfter = timestamp(&input)
            request.createdBefore = timestamp(&input)
            request.pageSize = input.int32()
            request.pageToken = input.string([""] + server.seeded)
            return request
        },
        method("AdminService", "RedeliverWebhooks") { input, _ in
            var request = RedeliverWebhooksRequest()
            request.deliveryID = input.int64()
            request.endpointID = input.string([""] + FuzzVocabulary.webhookEndpoints)
            request.createdAfter = timestamp(&input)
            request.createdBefore = timestamp(&input)
            return request
        },
        method("AdminService", "ListCustomers") { input, server in
            var request = ListCustomersRequest()
            request.pageSize = input.int32()
            request.pageToken = input.string([""] + server.seeded)
            request.entitlementID = input.string([""] + FuzzVocabulary.entitlementIDs)
            request.store = Store(rawValue: enumValue(&input, known: 5))
            request.productID = input.string([""] + FuzzVocabulary.productIDs)
            request.state = ListCustomersRequest.State(rawValue: enumValue(&input, known: 5))
            request.changedSince = timestamp(&input)
            return request
        },
        method("AdminService", "CountCustomers") { _, _ in CountCustomersRequest() },
        method("AdminService", "FindCustomers") { input, server in
            var request = FindCustomersRequest()
            request.query = input.string(
                FuzzVocabulary.appUserIDs + FuzzVocabulary.stripeIDs + FuzzVocabulary.appStoreTransactionIDs
                    + FuzzVocabulary.playTokens + server.seeded)
            return request
        },
        method("AdminService", "DescribeKey") { _, _ in DescribeKeyRequest() },
        method("AdminService", "DescribeTrust") { _, _ in DescribeTrustRequest() },
        method("AdminService", "ReconcileAppStore") { input, _ in
            var request = ReconcileAppStoreRequest()
            request.startTime = timestamp(&input)
            request.endTime = timestamp(&input)
            request.transactionIDs = (0..<count(&input)).map { _ in input.string(FuzzVocabulary.appStoreTransactionIDs) }
            request.onlyFailures = input.bool()
            return request
        },
        method("AdminService", "LookUpOrder") { input, _ in
            var request = LookUpOrderRequest()
            request.orderID = input.string(FuzzVocabulary.orderIDs)
            request.reason = input.string(FuzzVocabulary.reasons)
            return request
        },
        method("AdminService", "ExtendSubscription") { input, _ in
            var request = ExtendSubscriptionRequest()
            request.originalTransactionID = input.string(FuzzVocabulary.appStoreTransactionIDs)
            request.extendByDays = input.oneIn(2) ? input.int32() : 1 + Int32(input.choose(90))
            request.reasonCode = ExtendSubscriptionRequest.ReasonCode(rawValue: enumValue(&input, known: 4))
            request.requestIdentifier = input.string(["", "00000000-0000-4000-8000-00000000000a"])
            request.reason = input.string(FuzzVocabulary.reasons)
            return request
        },
        method("AdminService", "SendConsumptionInfo") { input, _ in
            var request = SendConsumptionInfoRequest()
            request.transactionID = input.string(FuzzVocabulary.appStoreTransactionIDs)
            request.customerConsented = !input.oneIn(4)
            request.deliveryStatus = SendConsumptionInfoRequest.DeliveryStatus(rawValue: enumValue(&input, known: 6))
            request.sampleContentProvided = input.bool()
            request.consumptionPercentage = input.oneIn(3) ? nil : input.int32()
            request.refundPreference = SendConsumptionInfoRequest.RefundPreference(rawValue: enumValue(&input, known: 4))
            request.reason = input.string(FuzzVocabulary.reasons)
            return request
        },
        method("AdminService", "RequestTestNotification") { input, _ in
            var request = RequestTestNotificationRequest()
            request.environment = StoreEnvironment(rawValue: enumValue(&input, known: 5))
            return request
        },
        method("AdminService", "GetTestNotificationStatus") { input, server in
            var request = GetTestNotificationStatusRequest()
            request.testNotificationToken = input.string(server.seeded)
            request.environment = StoreEnvironment(rawValue: enumValue(&input, known: 5))
            return request
        },
        method("AdminService", "CheckAppStoreSetup") { input, _ in
            var request = CheckAppStoreSetupRequest()
            request.wait = duration(&input)
            return request
        },
        method("AdminService", "GetMetrics") { input, _ in
            var request = GetMetricsRequest()
            request.metric = Metric(rawValue: enumValue(&input, known: 10, plain: 1))
            request.startDate = input.string(FuzzVocabulary.dates)
            request.endDate = input.string(FuzzVocabulary.dates)
            request.interval = MetricInterval(rawValue: enumValue(&input, known: 4))
            request.groupBy = (0..<count(&input)).map { _ in MetricDimension(rawValue: enumValue(&input, known: 6, plain: 1)) }
            if !input.oneIn(3) {
                var filter = MetricFilter()
                filter.store = input.string(["", "app_store", "play_store", "stripe", "web"])
                filter.productID = input.string([""] + FuzzVocabulary.productIDs)
                filter.entitlementID = input.string([""] + FuzzVocabulary.entitlementIDs)
                filter.country = input.string(["", "US", "DE"])
                filter.offerKind = input.string(["", "none", "free_trial", "bogus"])
                request.filter = filter
            }
            request.environment = StoreEnvironment(rawValue: enumValue(&input, known: 5))
            return request
        },
        method("AdminService", "ListMetricRows") { input, _ in
            var request = ListMetricRowsRequest()
            request.metric = Metric(rawValue: enumValue(&input, known: 10, plain: 1))
            request.startDate = input.string(FuzzVocabulary.dates)
            request.endDate = input.string(FuzzVocabulary.dates)
            request.group = (0..<count(&input)).map { _ in
                MetricGroupValue(
                    dimension: MetricDimension(rawValue: enumValue(&input, known: 6, plain: 1)),
                    value: input.string(["", "pro", "US", "app_store"]))
            }
            request.environment = StoreEnvironment(rawValue: enumValue(&input, known: 5))
            request.currency = input.string(["", "USD", "EUR"])
            request.pageSize = input.oneIn(4) ? input.int32() : Int32(input.choose(3))
            request.pageToken = input.string(["", "AQ", "not a token"])
            return request
        },
    ]

    // MARK: Fields

    /// Mostly unset; else seconds and nanos at the edges of the well-known type (and of milliseconds).
    static func timestamp(_ input: inout FuzzInput) -> ProtoTimestamp? {
        input.choose(3) == 0 ? nil : ProtoTimestamp(seconds: input.timestampSeconds(), nanos: input.nanos())
    }

    static func duration(_ input: inout FuzzInput) -> ProtoDuration? {
        input.choose(3) == 0 ? nil : ProtoDuration(seconds: input.durationSeconds(), nanos: input.nanos())
    }

    /// A known value (`plain` for a zero byte), else any `int32`.
    static func enumValue(_ input: inout FuzzInput, known: Int32, plain: Int32 = 0) -> Int32 {
        input.oneIn(4) ? input.int32() : (plain + Int32(input.choose(Int(known)))) % known
    }

    /// How many of a repeated field: a few, or past its limit.
    static func count(_ input: inout FuzzInput) -> Int {
        input.oneIn(8) ? input.pick([11, 101]) : input.choose(3)
    }

    static func appStorePurchase(_ input: inout FuzzInput, _ server: FuzzServer) -> AppStorePurchase {
        switch input.choose(4) {
        case 1: AppStorePurchase(transactionID: input.string(FuzzVocabulary.appStoreTransactionIDs))
        case 2: AppStorePurchase(signedTransaction: input.string([]), transactionID: input.string(FuzzVocabulary.appStoreTransactionIDs))
        case 3: AppStorePurchase(signedTransaction: input.string([]))
        default: AppStorePurchase(signedTransaction: server.payloads.signedTransaction(&input))
        }
    }

    static func playStorePurchase(_ input: inout FuzzInput) -> PlayStorePurchase {
        PlayStorePurchase(productID: input.string(StorePayloads.playProducts), purchaseToken: input.string(FuzzVocabulary.playTokens))
    }
}
