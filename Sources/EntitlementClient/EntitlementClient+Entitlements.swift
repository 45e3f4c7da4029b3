public import EntitlementsProto
public import ProtobufWire

// Typed calls of `entitlements.v1.EntitlementService` (public key) and `entitlements.v1.AdminService` (secret key).
// Each builds the request message and makes one call; server errors arrive as `RPCError`.
extension EntitlementClient {
    /// `Identify`: resolves `appUserID` (creating the customer on first sight), merging `anonymousID`'s customer
    /// into it when given.
    public func identify(appUserID: String, anonymousID: String? = nil) async throws -> IdentifyResponse {
        try await unary(
            Methods.identify, IdentifyRequest(appUserID: appUserID, anonymousID: anonymousID ?? ""))
    }

    /// `SyncStatus`: the customer's current status (`INACTIVE` for a never-seen user).
    public func syncStatus(appUserID: String) async throws -> SyncStatusResponse {
        try await unary(Methods.syncStatus, SyncStatusRequest(appUserID: appUserID))
    }

    /// `Purchase` of an App Store transaction (a StoreKit 2 signed transaction).
    public func purchaseAppStore(appUserID: String, signedTransaction: String) async throws -> PurchaseResponse {
        try await purchaseAppStore(appUserID: appUserID, AppStorePurchase(signedTransaction: signedTransaction))
    }

    /// `Purchase` of an App Store transaction by its ID: the server fetches and verifies it with Apple's App Store
    /// Server API.
    public func purchaseAppStore(appUserID: String, transactionID: String) async throws -> PurchaseResponse {
        try await purchaseAppStore(appUserID: appUserID, AppStorePurchase(transactionID: transactionID))
    }

    private func purchaseAppStore(appUserID: String, _ purchase: AppStorePurchase) async throws -> PurchaseResponse {
        var request = PurchaseRequest()
        request.appUserID = appUserID
        request.purchase = .appStore(purchase)
        return try await unary(Methods.purchase, request)
    }

    /// `Purchase` of a Google Play purchase: the product ID and the purchase token Play Billing gave the app, which the
    /// server looks up with Google.
    public func purchasePlayStore(appUserID: String, productID: String, purchaseToken: String) async throws
        -> PurchaseResponse
    {
        var request = PurchaseRequest()
        request.appUserID = appUserID
        request.purchase = .playStore(PlayStorePurchase(productID: productID, purchaseToken: purchaseToken))
        return try await unary(Methods.purchase, request)
    }

    /// `Purchase` with a redemption code: the web purchase nobody owned, attached to `appUserID`.
    public func redeem(appUserID: String, code: String) async throws -> PurchaseResponse {
        var request = PurchaseRequest()
        request.appUserID = appUserID
        request.purchase = .webRedemption(WebRedemption(code: code))
        return try await unary(Methods.purchase, request)
    }

    /// `Restore` of App Store transactions.
    public func restoreAppStore(appUserID: String, signedTransactions: [String]) async throws -> RestoreResponse {
        try await restore(appUserID: appUserID, signedTransactions: signedTransactions)
    }

    /// `Restore` of everything a device holds, from either store in one call: App Store signed transactions and
    /// Google Play (product ID, purchase token) pairs. The response's results follow the request: the App Store
    /// transactions first, then the Play purchases, each in the order given. For each of `appStoreHistoryIDs` the
    /// server reads the customer's whole App Store history from Apple (`app_store_histories` reports each).
    public func restore(
        appUserID: String, signedTransactions: [String] = [],
        playPurchases: [(productID: String, purchaseToken: String)] = [], appStoreHistoryIDs: [String] = []
    ) async throws -> RestoreResponse {
        var request = RestoreRequest()
        request.appUserID = appUserID
        request.appStore = signedTransactions.map { AppStorePurchase(signedTransaction: $0) }
        request.playStore = playPurchases.map { PlayStorePurchase(productID: $0.productID, purchaseToken: $0.purchaseToken) }
        request.appStoreTransactionIDs = appStoreHistoryIDs
        return try await unary(Methods.restore, request)
    }

    /// `StreamStatus`: a `SNAPSHOT` (or the events after `afterVersion`), then one event per change. Has no
    /// deadline; ends when the server ends the call, and cancelling the consuming task cancels the call.
    public func streamStatus(
        appUserID: String, afterVersion: UInt64 = 0
    ) -> AsyncThrowingStream<StatusEvent, any Error> {
        serverStreaming(
            Methods.streamStatus, StreamStatusRequest(appUserID: appUserID, afterVersion: afterVersion))
    }

    /// `GrantEntitlement`: set at most one of `expiresAt` and `duration`; neither means the grant never expires.
    public func grantEntitlement(
        appUserID: String, entitlementID: String, expiresAt: ProtoTimestamp? = nil, duration: Duration? = nil,
        reason: String = "", idempotencyKey: String = ""
    ) async throws -> Grant {
        let request = GrantEntitlementRequest(
            appUserID: appUserID, entitlementID: entitlementID, expiresAt: expiresAt,
            duration: duration.map(ProtoDuration.init), reason: reason, idempotencyKey: idempotencyKey)
        return try await unary(Methods.grantEntitlement, request)
    }

    /// `RevokeGrant`: ends a grant now; returns it as revoked.
    public func revokeGrant(grantID: String, reason: String = "") async throws -> Grant {
        try await unary(Methods.revokeGrant, RevokeGrantRequest(grantID: grantID, reason: reason))
    }

    /// `GetCustomer`: status, aliases, grants and transactions of one customer.
    public func getCustomer(appUserID: String) async throws -> Customer {
        try await unary(Methods.getCustomer, GetCustomerRequest(appUserID: appUserID))
    }

    /// `ExportCustomer`: the parts of the customer's export document, in order.
    public func exportCustomer(appUserID: String) -> AsyncThrowingStream<ExportCustomerChunk, any Error> {
        serverStreaming(Methods.exportCustomer, ExportCustomerRequest(appUserID: appUserID))
    }

    /// `DeleteCustomer`: erases the customer `appUserID` names; `confirmation` must repeat it.
    public func deleteCustomer(appUserID: String, confirmation: String) async throws -> DeleteCustomerResponse {
        try await unary(
            Methods.deleteCustomer, DeleteCustomerRequest(appUserID: appUserID, confirmAppUserID: confirmation))
    }

    /// `ListAuditEvents`: one page of the tenant's audit log, newest first.
    public func listAuditEvents(pageSize: Int32 = 0, pageToken: String = "") async throws -> ListAuditEventsResponse {
        try await unary(Methods.listAuditEvents, ListAuditEventsRequest(pageSize: pageSize, pageToken: pageToken))
    }

    /// `GetOfferEligibility`: for each product, whether its introductory offer is for the user, and which promotional
    /// offers set up on it the user may have now.
    public func offerEligibility(appUserID: String, productIDs: [String]) async throws -> GetOfferEligibilityResponse {
        try await unary(Methods.getOfferEligibility, GetOfferEligibilityRequest(appUserID: appUserID, productIDs: productIDs))
    }

    /// `SignOffer`: a promotional offer's signatures for the user (`offerID` set), or an introductory offer
    /// eligibility JWS (`offerID` empty).
    public func signOffer(_ request: SignOfferRequest) async throws -> SignOfferResponse {
        try await unary(Methods.signOffer, request)
    }

    /// `SetAttributes` (with a public key, as an app for its current user) or `SetCustomerAttributes` (with a secret
    /// key, as the backend): sets `set` and removes `unset`; returns the attributes after the call.
    public func setAttributes(appUserID: String, set: [Attribute], unset: [String], asApp: Bool) async throws
        -> SetAttributesResponse
    {
        let request = SetAttributesRequest(appUserID: appUserID, attributes: set, unsetKeys: unset)
        return try await unary(asApp ? Methods.setAttributes : Methods.setCustomerAttributes, request)
    }

    /// `RefreshStorePurchase`: asks the store for one purchase again (Google Play is the one supported: `purchaseID`
    /// is the purchase token) and applies what it says now; a failed acknowledgement is tried again. `productID` may
    /// be empty when the server already holds the purchase.
    public func refreshStorePurchase(store: Store, purchaseID: String, productID: String = "") async throws
        -> RefreshStorePurchaseResponse
    {
        try await unary(
            Methods.refreshStorePurchase,
            RefreshStorePurchaseRequest(store: store, purchaseID: purchaseID, productID: productID))
    }

    /// `GetRedemptionCode`: a new single-use code for the web purchase nobody owns that a Stripe ID names.
    public func getRedemptionCode(stripeID: String) async throws -> RedemptionCode {
        try await unary(Methods.getRedemptionCode, GetRedemptionCodeRequest(stripeID: stripeID))
    }

    /// `SendTestWebhook`: one signed test delivery to an endpoint of the tenant, and how the endpoint answered.
    public func sendTestWebhook(endpointID: String) async throws -> SendTestWebhookResponse {
        try await unary(Methods.sendTestWebhook, SendTestWebhookRequest(endpointID: endpointID))
    }

    /// `ListWebhookDeliveries`: one page of the tenant's webhook delivery log, newest first.
    public func listWebhookDeliveries(_ request: ListWebhookDeliveriesRequest) async throws -> ListWebhookDeliveriesResponse {
        try await unary(Methods.listWebhookDeliveries, request)
    }

    /// `RedeliverWebhooks`: one delivery, or every failed one matching, sent again with its original webhook-id.
    public func redeliverWebhooks(_ request: RedeliverWebhooksRequest) async throws -> RedeliverWebhooksResponse {
        try await unary(Methods.redeliverWebhooks, request)
    }

    /// `ReconcileAppStore`: Apple's notification history replayed; one report per environment.
    public func reconcileAppStore(_ request: ReconcileAppStoreRequest) async throws -> ReconcileAppStoreResponse {
        try await unary(Methods.reconcileAppStore, request)
    }

    /// `LookUpOrder`: Look Up Order ID through the server.
    public func lookUpOrder(_ request: LookUpOrderRequest) async throws -> LookUpOrderResponse {
        try await unary(Methods.lookUpOrder, request)
    }

    /// `ExtendSubscription`: Extend a Subscription Renewal Date through the server.
    public func extendSubscription(_ request: ExtendSubscriptionRequest) async throws -> ExtendSubscriptionResponse {
        try await unary(Methods.extendSubscription, request)
    }

    /// `SendConsumptionInfo`: Send Consumption Information through the server.
    public func sendConsumptionInfo(_ request: SendConsumptionInfoRequest) async throws -> SendConsumptionInfoResponse {
        try await unary(Methods.sendConsumptionInfo, request)
    }

    /// `RequestTestNotification`: Request a Test Notification through the server.
    public func requestTestNotification(_ request: RequestTestNotificationRequest) async throws -> RequestTestNotificationResponse {
        try await unary(Methods.requestTestNotification, request)
    }

    /// `GetTestNotificationStatus`: Get Test Notification Status, and whether the server received it.
    public func getTestNotificationStatus(_ request: GetTestNotificationStatusRequest) async throws -> GetTestNotificationStatusResponse {
        try await unary(Methods.getTestNotificationStatus, request)
    }

    /// `CheckAppStoreSetup`: the tenant's App Store Server API setup checked.
    public func checkAppStoreSetup(_ request: CheckAppStoreSetupRequest) async throws -> CheckAppStoreSetupResponse {
        try await unary(Methods.checkAppStoreSetup, request)
    }

    /// `ListCustomerEvents`: one page of the customer's history, newest first. `pageSize` 0 means the server
    /// default; `pageToken` is the previous page's `nextPageToken` ("" for the first page).
    public func listCustomerEvents(
        appUserID: String, pageSize: Int32 = 0, pageToken: String = ""
    ) async throws -> ListCustomerEventsResponse {
        try await unary(
            Methods.listCustomerEvents,
            ListCustomerEventsRequest(appUserID: appUserID, pageSize: pageSize, pageToken: pageToken))
    }

    /// `ListCustomers`: one page of the tenant's customers matching the request's filters, in creation order.
    public func listCustomers(_ request: ListCustomersRequest) async throws -> ListCustomersResponse {
        try await unary(Methods.listCustomers, request)
    }

    /// `GetMetrics`: one revenue metric as series over a range of dates.
    public func metrics(_ request: GetMetricsRequest) async throws -> GetMetricsResponse {
        try await unary(Methods.getMetrics, request)
    }

    /// `ListMetricRows`: the revenue ledger rows behind one point of a metric.
    public func metricRows(_ request: ListMetricRowsRequest) async throws -> ListMetricRowsResponse {
        try await unary(Methods.listMetricRows, request)
    }

    /// `CountCustomers`: customers with an active entitlement now, in all and per entitlement, product and store.
    public func countCustomers() async throws -> CountCustomersResponse {
        try await unary(Methods.countCustomers, CountCustomersRequest())
    }

    /// `DescribeTrust`: the tenant's user tokens (mode, this instance's counts) and signed status keys.
    public func describeTrust() async throws -> TrustDescription {
        try await unary(Methods.describeTrust, DescribeTrustRequest())
    }

    /// What one ID (app user ID, alias, transaction or order ID, Stripe ID) names in the tenant.
    public func findCustomers(_ query: String) async throws -> FindCustomersResponse {
        try await unary(Methods.findCustomers, FindCustomersRequest(query: query))
    }
}
