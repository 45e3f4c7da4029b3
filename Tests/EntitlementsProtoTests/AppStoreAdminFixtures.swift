import EntitlementsProto
import ProtobufWire

/// AdminService's App Store messages, built exactly as `Resources/roundtrip.py` builds them.
extension Fixtures {
    static let appStoreAdmin: [Fixture] = [
        Fixture("ReconcileAppStoreRequest") { u in
            unk(
                ReconcileAppStoreRequest(
                    startTime: ts(1_700_000_000, 0, u), endTime: ts(1_710_000_000, 0, u),
                    transactionIDs: ["2000000000000001", ""], onlyFailures: true),
                u)
        },
        Fixture("ReconcileAppStoreResponse") { u in
            unk(ReconcileAppStoreResponse(environments: [reconciliation(u, 0), reconciliation(u, 1)]), u)
        },
        Fixture("AppStoreReconciliation") { reconciliation($0, 0) },
        Fixture("LookUpOrderRequest") { u in
            var request = LookUpOrderRequest()
            request.orderID = "MK5TTTVWJH"
            request.reason = "ticket 7"
            return unk(request, u)
        },
        Fixture("LookUpOrderResponse") { u in
            var response = LookUpOrderResponse()
            response.found = true
            response.transactions = [transaction(u), transaction(u, 1)]
            return unk(response, u)
        },
        Fixture("ExtendSubscriptionRequest") { extendSubscriptionRequest($0, reasonCode: .serviceIssueOrOutage) },
        Fixture("ExtendSubscriptionRequest#unknownEnums") {
            extendSubscriptionRequest($0, reasonCode: .init(rawValue: 99))
        },
        Fixture("ExtendSubscriptionResponse") { u in
            var response = ExtendSubscriptionResponse()
            response.expiresAt = ts(1_710_000_000, 0, u)
            response.webOrderLineItemID = "2000000000000002"
            response.requestIdentifier = "9a1b"
            response.customer = customerStatus(u)
            return unk(response, u)
        },
        Fixture("SendConsumptionInfoRequest") { sendConsumptionInfoRequest($0, percentage: 25_000) },
        Fixture("SendConsumptionInfoRequest#zeroPercentage") { sendConsumptionInfoRequest($0, percentage: 0) },
        Fixture("SendConsumptionInfoRequest#noPercentage") { sendConsumptionInfoRequest($0, percentage: nil) },
        Fixture("SendConsumptionInfoResponse") { u in
            var response = SendConsumptionInfoResponse()
            response.deliveryStatus = .undeliveredOther
            response.ownerAppUserID = "user-1"
            return unk(response, u)
        },
        Fixture("RequestTestNotificationRequest") { u in
            var request = RequestTestNotificationRequest()
            request.environment = .sandbox
            return unk(request, u)
        },
        Fixture("RequestTestNotificationResponse") { u in
            var response = RequestTestNotificationResponse()
            response.testNotificationToken = "ce3af791-365e-4c60-841b-1674b43c1609_1700000000000"
            response.environment = .production
            return unk(response, u)
        },
        Fixture("GetTestNotificationStatusRequest") { u in
            var request = GetTestNotificationStatusRequest()
            request.testNotificationToken = "token-1"
            request.environment = StoreEnvironment(rawValue: 99)
            return unk(request, u)
        },
        Fixture("GetTestNotificationStatusResponse") { u in
            var response = GetTestNotificationStatusResponse()
            response.sendAttempts = [testNotificationAttempt(u, "TIMED_OUT"), testNotificationAttempt(u, "SUCCESS")]
            response.received = true
            return unk(response, u)
        },
        Fixture("TestNotificationAttempt") { testNotificationAttempt($0, "SUCCESS") },
        Fixture("CheckAppStoreSetupRequest") { u in
            var request = CheckAppStoreSetupRequest()
            request.wait = unk(ProtoDuration(seconds: 5, nanos: 0), u)
            return unk(request, u)
        },
        Fixture("CheckAppStoreSetupResponse") { u in
            var response = CheckAppStoreSetupResponse()
            response.tenantID = "demo"
            response.ok = false
            response.checks = [setupCheck(u, ok: true), setupCheck(u, ok: false)]
            return unk(response, u)
        },
        Fixture("AppStoreSetupCheck") { setupCheck($0, ok: true) },
        .empty(ReconcileAppStoreRequest.self), .empty(ReconcileAppStoreResponse.self),
        .empty(AppStoreReconciliation.self), .empty(LookUpOrderRequest.self), .empty(LookUpOrderResponse.self),
        .empty(ExtendSubscriptionRequest.self), .empty(ExtendSubscriptionResponse.self),
        .empty(SendConsumptionInfoRequest.self), .empty(SendConsumptionInfoResponse.self),
        .empty(RequestTestNotificationRequest.self), .empty(RequestTestNotificationResponse.self),
        .empty(GetTestNotificationStatusRequest.self), .empty(GetTestNotificationStatusResponse.self),
        .empty(TestNotificationAttempt.self), .empty(CheckAppStoreSetupRequest.self),
        .empty(CheckAppStoreSetupResponse.self), .empty(AppStoreSetupCheck.self),
    ]

    static func extendSubscriptionRequest(_ u: Bool, reasonCode: ExtendSubscriptionRequest.ReasonCode)
        -> ExtendSubscriptionRequest
    {
        var request = ExtendSubscriptionRequest()
        request.originalTransactionID = "2000000000000001"
        request.extendByDays = 30
        request.reasonCode = reasonCode
        request.requestIdentifier = "9a1b"
        request.reason = "outage 2030-01-31"
        return unk(request, u)
    }

    static func sendConsumptionInfoRequest(_ u: Bool, percentage: Int32?) -> SendConsumptionInfoRequest {
        var request = SendConsumptionInfoRequest()
        request.transactionID = "2000000000000001"
        request.customerConsented = true
        request.deliveryStatus = .delivered
        request.sampleContentProvided = true
        request.consumptionPercentage = percentage
        request.refundPreference = .grantProrated
        request.reason = "refund request"
        return unk(request, u)
    }

    static func testNotificationAttempt(_ u: Bool, _ result: String) -> TestNotificationAttempt {
        var attempt = TestNotificationAttempt()
        attempt.attemptedAt = ts(1_700_000_000, 0, u)
        attempt.result = result
        return unk(attempt, u)
    }

    static func setupCheck(_ u: Bool, ok: Bool) -> AppStoreSetupCheck {
        var check = AppStoreSetupCheck()
        check.environment = .sandbox
        check.name = ok ? "key" : "notification_url"
        check.ok = ok
        check.detail = ok ? "Apple accepted the key." : "Apple has no notification URL."
        return unk(check, u)
    }

    static func reconciliation(_ u: Bool, _ i: Int32) -> AppStoreReconciliation {
        var report = AppStoreReconciliation()
        report.environment = i == 0 ? .production : StoreEnvironment(rawValue: 99)
        report.startTime = ts(1_700_000_000, 0, u)
        report.endTime = ts(1_710_000_000, 0, u)
        report.pages = 2 + i
        report.found = 41
        report.applied = 3
        report.unchanged = 1
        report.unowned = 2
        report.alreadyProcessed = 30
        report.rejected = 5
        report.rejections = ["bad signature", ""]
        return unk(report, u)
    }
}
