import AppStore
import AppStoreServerAPI
import BoundedText
public import EntitlementDomain
import Foundation

/// The levers Apple gives support staff, through the tenant's App Store Server API: Look Up Order ID, Extend a
/// Subscription Renewal Date, Send Consumption Information and test notifications. Each action about a purchase is
/// audited as an event of its owner; Apple's limits are checked here first, so a refusal says why in our words.
public struct AppStoreSupport: Sendable {
    let engine: CustomerEngine
    let purchases: AppStorePurchases
    let apis: AppStoreServerAPIs

    public init(engine: CustomerEngine, purchases: AppStorePurchases, apis: AppStoreServerAPIs) {
        self.engine = engine
        self.purchases = purchases
        self.apis = apis
    }

    /// One transaction of an order, as Apple signed it, and the app user ID holding its purchase here ("" for none).
    struct OrderTransaction {
        var purchase: StorePurchase
        var ownerAppUserID: String
    }

    /// Look Up Order ID; nil when Apple does not know the order ID. Audited on each owner.
    func lookUpOrder(_ orderID: String, reason: String, tenant: Tenant) async throws(DomainError) -> [OrderTransaction]? {
        guard (1...64).contains(orderID.utf8.count), orderID.utf8.allSatisfy({ Self.isLetterOrDigit($0) }) else {
            throw .invalidRequest("order_id must be the order ID from the receipt email: 1 to 64 letters and digits.")
        }
        let settings = try AppStorePurchases.settings(of: tenant)
        let (client, environments) = try apis.client(for: tenant, settings: settings, use: .orderLookup)
        guard environments.contains(.production) else {
            throw .tenantMisconfigured(
                "Apple looks up order IDs in production only, and tenant '\(tenant.id)' accepts no production purchases.")
        }
        guard let tokens = try await AppStorePurchases.asking({ () async throws(AppStoreServerAPIError) in
            try await client.lookUpOrder(orderID)
        }) else { return nil }
        var found: [OrderTransaction] = []
        var audited: [Int64: String] = [:]
        for token in tokens {
            let purchase = try AppStoreInterpretation.purchase(
                from: try purchases.verifiedTransaction(token, tenant: tenant, settings: settings), tenant: tenant,
                settings: settings, unmappedGrantsNothing: true)
            var owner = ""
            if let customerID = try engine.purchases.purchase(
                tenantID: tenant.id, store: .appStore, originalTransactionID: purchase.originalTransactionID)?.customerID
            {
                if let known = audited[customerID] {
                    owner = known
                } else {
                    owner = try await engine.supportActions.record(
                        tenantID: tenant.id, customerID: customerID,
                        reason: Self.auditReason("Order \(orderID) looked up with Apple", reason),
                        reference: purchase.originalTransactionID
                    ).appUserID
                    audited[customerID] = owner
                }
            }
            found.append(OrderTransaction(purchase: purchase, ownerAppUserID: owner))
        }
        return found
    }

    /// What an extension asks for.
    struct ExtensionRequest {
        var originalTransactionID: String
        var days: Int
        /// Apple's: 0 undeclared, 1 customer satisfaction, 2 other, 3 service issue or outage.
        var reasonCode: Int
        var requestIdentifier: String
        var reason: String
    }

    /// Extend a Subscription Renewal Date, once Apple's limits are checked here; the new expiry is applied at once.
    func extendSubscription(_ request: ExtensionRequest, tenant: Tenant) async throws(DomainError)
        -> (AppStoreRenewalExtension, expiresAt: UnixTime, owner: CustomerState)
    {
        guard (1...90).contains(request.days) else {
            throw .invalidRequest("extend_by_days must be 1 to 90 (Apple's limit), got \(request.days).")
        }
        guard (0...3).contains(request.reasonCode) else {
            throw .invalidRequest("reason_code \(request.reasonCode) is not one of Apple's extension reasons (0 to 3).")
        }
        guard (1...128).contains(request.requestIdentifier.utf8.count),
            request.requestIdentifier.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else {
            throw .invalidRequest("request_identifier must be 1 to 128 printable ASCII characters.")
        }
        let settings = try AppStorePurchases.settings(of: tenant)
        guard
            let purchase = try engine.purchases.purchase(
                tenantID: tenant.id, store: .appStore, originalTransactionID: request.originalTransactionID),
            purchase.customerID != nil
        else {
            throw .notFound("The server holds no App Store purchase \(request.originalTransactionID) with an owner.")
        }
        try checkExtendable(purchase, settings: settings, requestIdentifier: request.requestIdentifier)
        let environment: AppStoreAPIEnvironment = purchase.environment == .production ? .production : .sandbox
        let (client, _) = try apis.client(for: tenant, settings: settings, use: .renewalExtension)
        let answer = try await AppStorePurchases.asking { () async throws(AppStoreServerAPIError) in
            try await client.extendRenewalDate(
                originalTransactionID: request.originalTransactionID, days: request.days,
                reasonCode: request.reasonCode, requestIdentifier: request.requestIdentifier, in: environment)
        }
        guard let effective = answer.effectiveDate else {
            throw .storeUnavailable("Apple extended the subscription but gave no effectiveDate; its notification will say.")
        }
        let expiresAt = try UnixTime(milliseconds: effective, checking: "Apple's effectiveDate")
        let owner = try await engine.supportActions.applyRenewalExtension(
            tenantID: tenant.id, originalTransactionID: request.originalTransactionID, expiresAt: expiresAt,
            requestIdentifier: request.requestIdentifier, days: request.days,
            reason: Self.auditReason(
                "Renewal date extended with Apple by \(counted(request.days, "day")) (reason code \(request.reasonCode))",
                request.reason))
        return (answer, expiresAt, owner)
    }

    /// Apple's conditions for an extension, checked on what the server holds: an active, paid, own
    /// auto-renewable subscription not in billing retry, extended less than twice in 365 days.
    private func checkExtendable(_ purchase: StorePurchase, settings: AppStoreSettings, requestIdentifier: String)
        throws(DomainError)
    {
        let now = engine.now()
        let refusal: String? =
            if !AppStoreInterpretation.isSubscription(purchase, settings: settings) {
                "it is not an auto-renewable subscription"
            } else if purchase.revokedAt != nil {
                "Apple revoked it"
            } else if purchase.expiresAt.map({ $0 <= now }) ?? true {
                "it is not active (Apple extends active subscriptions only)"
            } else if purchase.renewal.inBillingRetry {
                "it is in billing retry"
            } else if purchase.ownership == .familyShared {
                "it is shared through Family Sharing (extend the purchaser's subscription)"
            } else if !purchase.environment.hasAppleServer {
                "it is from a local test environment Apple's server does not know"
            } else {
                nil
            }
        if let refusal {
            throw .wrongState("App Store purchase \(purchase.originalTransactionID) cannot be extended: \(refusal).")
        }
        let count = try engine.supportActions.renewalExtensionCount(
            tenantID: purchase.tenantID, originalTransactionID: purchase.originalTransactionID,
            requestIdentifier: requestIdentifier)
        guard count < 2 else {
            throw .wrongState(
                "App Store purchase \(purchase.originalTransactionID) was extended \(count) times in the last 365 days; Apple allows two.")
        }
    }

    /// What a consumption answer carries besides the transaction.
    struct ConsumptionRequest {
        var transactionID: String
        var customerConsented: Bool
        /// Apple's name; nil: the server decides.
        var deliveryStatus: String?
        var sampleContentProvided: Bool
        var consumptionPercentage: Int?
        var refundPreference: String?
        var reason: String
    }

    /// Send Consumption Information for a transaction; the delivery status is DELIVERED when the request does not say
    /// and the server holds the purchase for a customer. Returns what was sent and the owner's app user ID.
    func sendConsumption(_ request: ConsumptionRequest, tenant: Tenant) async throws(DomainError)
        -> (deliveryStatus: String, ownerAppUserID: String)
    {
        guard request.customerConsented else {
            throw .wrongState(
                "Apple takes consumption information only with the customer's consent: set customer_consented.")
        }
        if let percentage = request.consumptionPercentage, !(0...100_000).contains(percentage) {
            throw .invalidRequest("consumption_percentage is in thousandths of a percent: 0 to 100000, got \(percentage).")
        }
        if request.refundPreference == "GRANT_PRORATED", (request.consumptionPercentage ?? 0) <= 0 {
            throw .invalidRequest("GRANT_PRORATED needs a consumption_percentage above 0 (Apple's rule).")
        }
        let settings = try AppStorePurchases.settings(of: tenant)
        let (client, environments) = try apis.client(for: tenant, settings: settings, use: .consumptionInformation)
        // Apple's own copy names the purchase (and the environment that knows it) whatever the caller sends.
        let (signed, environment) = try await AppStorePurchases.asking { () async throws(AppStoreServerAPIError) in
            try await client.transactionInfo(request.transactionID, in: environments)
        }
        let transaction = try purchases.verifiedTransaction(signed, tenant: tenant, settings: settings)
        let stored = try transaction.originalTransactionId.flatMap { original throws(DomainError) in
            try engine.purchases.purchase(tenantID: tenant.id, store: .appStore, originalTransactionID: original)
        }
        guard let deliveryStatus = request.deliveryStatus ?? (stored?.customerID != nil ? "DELIVERED" : nil) else {
            throw .wrongState(
                "The server holds no owner for transaction \(request.transactionID): say delivery_status.")
        }
        let consumption = AppStoreConsumption(
            customerConsented: true, sampleContentProvided: request.sampleContentProvided,
            deliveryStatus: deliveryStatus, consumptionPercentage: request.consumptionPercentage,
            refundPreference: request.refundPreference)
        try await AppStorePurchases.asking { () async throws(AppStoreServerAPIError) in
            try await client.sendConsumption(consumption, transactionID: request.transactionID, in: environment)
        }
        guard let stored, let owner = stored.customerID else { return (deliveryStatus, "") }
        let state = try await engine.supportActions.record(
            tenantID: tenant.id, customerID: owner,
            reason: Self.auditReason(
                "Consumption information sent to Apple for transaction \(request.transactionID) (\(deliveryStatus))",
                request.reason),
            reference: stored.originalTransactionID)
        return (deliveryStatus, state.appUserID)
    }

    /// The environment a test notification goes to: the one asked for, else production when the tenant accepts it.
    func testEnvironment(_ asked: AppStoreAPIEnvironment?, tenant: Tenant, use: AppStoreServerAPIUse) throws(DomainError)
        -> (AppStoreServerAPIClient, AppStoreAPIEnvironment)
    {
        let settings = try AppStorePurchases.settings(of: tenant)
        let (client, environments) = try apis.client(for: tenant, settings: settings, use: use)
        guard let environment = asked ?? environments.first else {
            throw .tenantMisconfigured("Tenant '\(tenant.id)' accepts no environment Apple's server knows.")
        }
        guard environments.contains(environment) else {
            throw .tenantMisconfigured("Tenant '\(tenant.id)' does not accept the \(environment.rawValue) environment.")
        }
        return (client, environment)
    }

    /// Request a Test Notification: Apple's token.
    func requestTestNotification(in environment: AppStoreAPIEnvironment?, tenant: Tenant) async throws(DomainError)
        -> (token: String, environment: AppStoreAPIEnvironment)
    {
        let (client, environment) = try testEnvironment(environment, tenant: tenant, use: .testNotification)
        let token = try await AppStorePurchases.asking { () async throws(AppStoreServerAPIError) in
            try await client.requestTestNotification(in: environment)
        }
        return (token, environment)
    }

    /// Get Test Notification Status, and whether this server received that notification (verified and recorded).
    func testNotificationStatus(_ token: String, in environment: AppStoreAPIEnvironment?, tenant: Tenant)
        async throws(DomainError) -> (AppStoreTestNotificationStatus, received: Bool)
    {
        let (client, environment) = try testEnvironment(environment, tenant: tenant, use: .testNotification)
        let status = try await AppStorePurchases.asking { () async throws(AppStoreServerAPIError) in
            try await client.testNotificationStatus(token, in: environment)
        }
        guard let signed = status.signedPayload else { return (status, false) }
        let settings = try AppStorePurchases.settings(of: tenant)
        let (data, claimed) = try AppStorePurchases.unverified(signed, as: NotificationPayload.self)
        let verifier = try purchases.verifier(for: tenant, settings: settings, claimed: claimed)
        let notification: NotificationPayload
        do throws(AppStoreVerificationError) {
            notification = try verifier.verifyNotification(data)
        } catch {
            throw AppStorePurchases.domainError(error, subject: "test notification")
        }
        guard let id = notification.notificationUUID, !id.isEmpty else { return (status, false) }
        return (status, try engine.purchases.isNotificationProcessed(tenantID: tenant.id, notificationID: id))
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }

    /// `what`, then the operator's reason when one was given (bounded).
    static func auditReason(_ what: String, _ reason: String) -> String {
        let given = reason.trimmingCharacters(in: .whitespacesAndNewlines)
        return given.isEmpty ? what + "." : what + ": " + String(given.prefix(500))
    }
}

extension PurchaseEnvironment {
    /// Production and sandbox purchases live on Apple's servers; local test environments do not.
    var hasAppleServer: Bool { self == .production || self == .sandbox }
}
