import AppStoreServerAPI
import CivilCalendar
import Foundation
import EntitlementDomain
import EntitlementsProto
import ProtobufWire
import RPCCore

/// AdminService's App Store Server API methods.
extension AdminService {
    func registerAppStoreMethods(on router: inout RPCRouter) {
        router.registerUnary(Self.method("ReconcileAppStore")) { (request: ReconcileAppStoreRequest, context) in
            try await reconcileAppStore(request, context)
        }
        router.registerUnary(Self.method("LookUpOrder")) { (request: LookUpOrderRequest, context) in
            try await lookUpOrder(request, context)
        }
        router.registerUnary(Self.method("ExtendSubscription")) { (request: ExtendSubscriptionRequest, context) in
            try await extendSubscription(request, context)
        }
        router.registerUnary(Self.method("SendConsumptionInfo")) { (request: SendConsumptionInfoRequest, context) in
            try await sendConsumptionInfo(request, context)
        }
        router.registerUnary(Self.method("RequestTestNotification")) { (request: RequestTestNotificationRequest, context) in
            try await requestTestNotification(request, context)
        }
        router.registerUnary(Self.method("GetTestNotificationStatus")) {
            (request: GetTestNotificationStatusRequest, context) in
            try await testNotificationStatus(request, context)
        }
        router.registerUnary(Self.method("CheckAppStoreSetup")) { (request: CheckAppStoreSetupRequest, context) in
            try await checkAppStoreSetup(request, context)
        }
    }

    private func reconcileAppStore(_ request: ReconcileAppStoreRequest, _ context: ServerContext) async throws
        -> ReconcileAppStoreResponse
    {
        try await log.call(context, requires: .secretKey, in: tenants) { tenant, _ in
            guard let reconciler = appStoreReconciler else {
                throw DomainError.serverMisconfigured("This server makes no outbound calls: its outbound HTTP client is not set up.")
            }
            let start = try request.startTime?.requestTime(field: "start_time")
            let end = try request.endTime?.requestTime(field: "end_time")
            if let start, let end, start >= end { throw DomainError.invalidRequest("start_time must be before end_time.") }
            guard request.transactionIDs.count <= 10 else {
                throw DomainError.invalidRequest("transaction_ids takes at most 10 IDs, got \(request.transactionIDs.count).")
            }
            for (index, id) in request.transactionIDs.enumerated() {
                try Self.checkAppStoreTransactionID(id, field: "transaction_ids[\(index)]")
            }
            let reports = try await reconciler.reconcile(
                tenantID: tenant.id, start: start?.milliseconds, end: end?.milliseconds,
                transactionIDs: request.transactionIDs, onlyFailures: request.onlyFailures)
            return ReconcileAppStoreResponse(environments: reports.map(AppStoreReconciliation.init))
        }
    }

    /// The support actions need Apple: an outbound client.
    private func support() throws(DomainError) -> AppStoreSupport {
        guard let appStoreSupport else {
            throw .serverMisconfigured("This server makes no outbound calls: its outbound HTTP client is not set up.")
        }
        return appStoreSupport
    }

    private func lookUpOrder(_ request: LookUpOrderRequest, _ context: ServerContext) async throws -> LookUpOrderResponse {
        try await log.call(context, requires: .secretKey, in: tenants) { tenant, _ in
            let found = try await support().lookUpOrder(request.orderID, reason: request.reason, tenant: tenant)
            var response = LookUpOrderResponse()
            response.found = found != nil
            response.transactions = (found ?? []).map { Transaction($0.purchase, ownerAppUserID: $0.ownerAppUserID) }
            return response
        }
    }

    private func extendSubscription(_ request: ExtendSubscriptionRequest, _ context: ServerContext) async throws
        -> ExtendSubscriptionResponse
    {
        try await log.call(context, requires: .secretKey, in: tenants) { tenant, fields in
            try Self.checkAppStoreTransactionID(request.originalTransactionID, field: "original_transaction_id")
            let identifier = request.requestIdentifier.isEmpty ? UUID().uuidString.lowercased() : request.requestIdentifier
            let (answer, expiresAt, owner) = try await support().extendSubscription(
                AppStoreSupport.ExtensionRequest(
                    originalTransactionID: request.originalTransactionID, days: Int(request.extendByDays),
                    reasonCode: Int(request.reasonCode.rawValue), requestIdentifier: identifier, reason: request.reason),
                tenant: tenant)
            fields.appUserID = owner.appUserID
            var response = ExtendSubscriptionResponse()
            response.expiresAt = ProtoTimestamp(expiresAt)
            response.webOrderLineItemID = answer.webOrderLineItemId ?? ""
            response.requestIdentifier = identifier
            response.customer = CustomerStatus(owner, serverTime: engine.now())
            return response
        }
    }

    private func sendConsumptionInfo(_ request: SendConsumptionInfoRequest, _ context: ServerContext) async throws
        -> SendConsumptionInfoResponse
    {
        try await log.call(context, requires: .secretKey, in: tenants) { tenant, fields in
            try Self.checkAppStoreTransactionID(request.transactionID, field: "transaction_id")
            let statuses = [
                "DELIVERED", "UNDELIVERED_QUALITY_ISSUE", "UNDELIVERED_WRONG_ITEM", "UNDELIVERED_SERVER_OUTAGE",
                "UNDELIVERED_OTHER",
            ]
            let preferences = ["DECLINE", "GRANT_FULL", "GRANT_PRORATED"]
            func named(_ value: Int32, _ names: [String], _ field: String) throws(DomainError) -> String? {
                guard value != 0 else { return nil }
                guard (1...names.count).contains(Int(value)) else {
                    throw .invalidRequest("\(field) \(value) is not one of Apple's values.")
                }
                return names[Int(value) - 1]
            }
            let sent = try await support().sendConsumption(
                AppStoreSupport.ConsumptionRequest(
                    transactionID: request.transactionID, customerConsented: request.customerConsented,
                    deliveryStatus: try named(request.deliveryStatus.rawValue, statuses, "delivery_status"),
                    sampleContentProvided: request.sampleContentProvided,
                    consumptionPercentage: request.consumptionPercentage.map(Int.init),
                    refundPreference: try named(request.refundPreference.rawValue, preferences, "refund_preference"),
                    reason: request.reason),
                tenant: tenant)
            fields.appUserID = sent.ownerAppUserID
            var response = SendConsumptionInfoResponse()
            response.deliveryStatus = SendConsumptionInfoRequest.DeliveryStatus(
                rawValue: Int32((statuses.firstIndex(of: sent.deliveryStatus) ?? -1) + 1))
            response.ownerAppUserID = sent.ownerAppUserID
            return response
        }
    }

    private func requestTestNotification(_ request: RequestTestNotificationRequest, _ context: ServerContext)
        async throws -> RequestTestNotificationResponse
    {
        try await log.call(context, requires: .secretKey, in: tenants) { tenant, _ in
            let (token, environment) = try await support().requestTestNotification(
                in: try Self.apiEnvironment(request.environment), tenant: tenant)
            var response = RequestTestNotificationResponse()
            response.testNotificationToken = token
            response.environment = environment == .production ? .production : .sandbox
            return response
        }
    }

    private func testNotificationStatus(_ request: GetTestNotificationStatusRequest, _ context: ServerContext)
        async throws -> GetTestNotificationStatusResponse
    {
        try await log.call(context, requires: .secretKey, scope: .read, in: tenants) { tenant, _ in
            guard !request.testNotificationToken.isEmpty else {
                throw DomainError.invalidRequest("test_notification_token is required: RequestTestNotification gives it.")
            }
            let (status, received) = try await support().testNotificationStatus(
                request.testNotificationToken, in: try Self.apiEnvironment(request.environment), tenant: tenant)
            var response = GetTestNotificationStatusResponse()
            response.received = received
            response.sendAttempts = (status.sendAttempts ?? []).map { attempt in
                var sent = TestNotificationAttempt()
                sent.attemptedAt = attempt.attemptDate.map { ProtoTimestamp(unixMilliseconds: $0) }
                sent.result = attempt.sendAttemptResult ?? ""
                return sent
            }
            return response
        }
    }

    private func checkAppStoreSetup(_ request: CheckAppStoreSetupRequest, _ context: ServerContext) async throws
        -> CheckAppStoreSetupResponse
    {
        try await log.call(context, requires: .secretKey, scope: .read, in: tenants) { tenant, _ in
            var wait = Duration.seconds(10)
            if let given = request.wait {
                wait = .milliseconds(try given.requestMilliseconds(field: "wait", allowed: 0...Milliseconds.perMinute))
            }
            let checks = try await support().checkSetup(tenant: tenant, wait: wait)
            var response = CheckAppStoreSetupResponse()
            response.tenantID = tenant.id
            response.ok = checks.allSatisfy(\.ok)
            response.checks = checks.map { check in
                var proto = AppStoreSetupCheck()
                proto.environment = check.environment == .production ? .production : .sandbox
                proto.name = check.name
                proto.ok = check.ok
                proto.detail = check.detail
                return proto
            }
            return response
        }
    }

    /// PRODUCTION or SANDBOX; nil for unset.
    private static func apiEnvironment(_ environment: StoreEnvironment) throws(DomainError) -> AppStoreAPIEnvironment? {
        switch environment {
        case .unspecified: return nil
        case .production: return .production
        case .sandbox: return .sandbox
        default: throw .invalidRequest("environment must be PRODUCTION or SANDBOX: Apple's server has no other.")
        }
    }

    /// An App Store transaction ID: digits only, as Apple makes them.
    static func checkAppStoreTransactionID(_ id: String, field: String) throws(DomainError) {
        guard (1...32).contains(id.utf8.count), id.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw .invalidRequest("\(field) must be an App Store transaction ID: 1 to 32 digits.")
        }
    }
}

extension AppStoreReconciliation {
    init(_ report: AppStoreReconciliationReport) {
        self.init()
        environment = report.environment == .production ? .production : .sandbox
        startTime = ProtoTimestamp(unixMilliseconds: report.startDate)
        endTime = ProtoTimestamp(unixMilliseconds: report.endDate)
        pages = Int32(clamping: report.pages)
        found = Int32(clamping: report.found)
        applied = Int32(clamping: report.applied)
        unchanged = Int32(clamping: report.unchanged)
        unowned = Int32(clamping: report.unowned)
        alreadyProcessed = Int32(clamping: report.alreadyProcessed)
        rejected = Int32(clamping: report.rejected)
        rejections = report.rejections
    }
}
