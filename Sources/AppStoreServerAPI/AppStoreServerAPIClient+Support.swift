/// The support actions Apple offers: Look Up Order ID, Extend a Subscription Renewal Date, Send Consumption
/// Information, and test notifications.
extension AppStoreServerAPIClient {
    /// Look Up Order ID (production only): the signed transactions of the order on a customer's receipt email; nil
    /// when Apple says the order ID is not valid.
    public func lookUpOrder(_ orderID: String) async throws(AppStoreServerAPIError) -> [String]? {
        let id = try Self.pathComponent(orderID, "order ID")
        let body = try await send("GET", "/inApps/v1/lookup/\(id)", in: .production)
        let response: OrderLookupResponse = try decode(body, "Look Up Order ID")
        switch response.status {
        case 0: return response.signedTransactions ?? []
        case 1: return nil
        default:
            throw AppStoreServerAPIError(.malformedResponse, "Look Up Order ID: status \(response.status) is not Apple's 0 or 1")
        }
    }

    /// Extend a Subscription Renewal Date. Apple answers `success: false` when it did not extend: that is an error.
    public func extendRenewalDate(
        originalTransactionID: String, days: Int, reasonCode: Int, requestIdentifier: String,
        in environment: AppStoreAPIEnvironment
    ) async throws(AppStoreServerAPIError) -> AppStoreRenewalExtension {
        let id = try Self.pathComponent(originalTransactionID, "original transaction ID")
        let request = ExtendRequest(extendByDays: days, extendReasonCode: reasonCode, requestIdentifier: requestIdentifier)
        let body = try await send(
            "PUT", "/inApps/v1/subscriptions/extend/\(id)", body: request.json, in: environment)
        let response: AppStoreRenewalExtension = try decode(body, "Extend a Subscription Renewal Date")
        guard response.success else {
            throw AppStoreServerAPIError(.refused, "Extend a Subscription Renewal Date: Apple answered success false")
        }
        return response
    }

    /// Send Consumption Information (v2), the answer to a `CONSUMPTION_REQUEST`.
    public func sendConsumption(
        _ consumption: AppStoreConsumption, transactionID: String, in environment: AppStoreAPIEnvironment
    ) async throws(AppStoreServerAPIError) {
        let id = try Self.pathComponent(transactionID, "transaction ID")
        _ = try await send(
            "PUT", "/inApps/v2/transactions/consumption/\(id)", body: consumption.json, in: environment)
    }

    /// Request a Test Notification: Apple's token for asking about it.
    public func requestTestNotification(in environment: AppStoreAPIEnvironment) async throws(AppStoreServerAPIError)
        -> String
    {
        let body = try await send("POST", "/inApps/v1/notifications/test", in: environment)
        let response: TestNotificationResponse = try decode(body, "Request a Test Notification")
        return response.testNotificationToken
    }

    /// Get Test Notification Status: the signed TEST notification (when Apple made it) and Apple's attempts.
    public func testNotificationStatus(_ token: String, in environment: AppStoreAPIEnvironment)
        async throws(AppStoreServerAPIError) -> AppStoreTestNotificationStatus
    {
        // Apple's tokens are a UUID and a time joined by `_`.
        let id = try Self.pathComponent(token, "test notification token")
        let body = try await send("GET", "/inApps/v1/notifications/test/\(id)", in: environment)
        return try decode(body, "Get Test Notification Status")
    }

}

/// Apple's answer to Extend a Subscription Renewal Date.
public struct AppStoreRenewalExtension: Sendable, Hashable {
    public var originalTransactionId: String?
    public var webOrderLineItemId: String?
    public var success: Bool
    /// The new expiry, milliseconds since 1970.
    public var effectiveDate: Int64?
}

/// Send Consumption Information's body (v2), in Apple's field names.
public struct AppStoreConsumption: Sendable, Hashable {
    public var customerConsented: Bool
    public var sampleContentProvided: Bool
    /// DELIVERED, UNDELIVERED_QUALITY_ISSUE, UNDELIVERED_WRONG_ITEM, UNDELIVERED_SERVER_OUTAGE, UNDELIVERED_OTHER.
    public var deliveryStatus: String
    /// Thousandths of a percent, 0...100000.
    public var consumptionPercentage: Int?
    /// DECLINE, GRANT_FULL, GRANT_PRORATED.
    public var refundPreference: String?

    public init(
        customerConsented: Bool, sampleContentProvided: Bool, deliveryStatus: String, consumptionPercentage: Int?,
        refundPreference: String?
    ) {
        self.customerConsented = customerConsented
        self.sampleContentProvided = sampleContentProvided
        self.deliveryStatus = deliveryStatus
        self.consumptionPercentage = consumptionPercentage
        self.refundPreference = refundPreference
    }
}

/// Apple's Get Test Notification Status answer.
public struct AppStoreTestNotificationStatus: Sendable, Hashable {
    public struct Attempt: Sendable, Hashable {
        /// Milliseconds since 1970.
        public var attemptDate: Int64?
        public var sendAttemptResult: String?
    }

    public var signedPayload: String?
    public var sendAttempts: [Attempt]?
}

struct OrderLookupResponse {
    var status: Int
    var signedTransactions: [String]?
}

struct ExtendRequest {
    var extendByDays: Int
    var extendReasonCode: Int
    var requestIdentifier: String
}

struct TestNotificationResponse {
    var testNotificationToken: String
}
