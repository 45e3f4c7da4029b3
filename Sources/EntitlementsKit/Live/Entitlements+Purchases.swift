public import EntitlementsProto

extension Entitlements {
    /// What the server made of purchases the app sent: one result per purchase, in the order sent, and the status
    /// after them (published before this returns).
    public struct PurchaseOutcome: Sendable {
        public var results: [PurchaseResult]
        public var status: StatusSnapshot
        /// Customers the purchases were moved away from (the tenant's transfer policy decides).
        public var transferredFrom: [String]
    }

    /// Sends a StoreKit 2 transaction (`VerificationResult.jwsRepresentation`) to the server.
    public func purchase(signedTransaction: String) async throws -> PurchaseOutcome {
        try await purchase(.appStore(AppStorePurchase(signedTransaction: signedTransaction)))
    }

    /// Sends an App Store transaction ID: the server reads the transaction from Apple's App Store Server API.
    public func purchase(transactionID: String) async throws -> PurchaseOutcome {
        var purchase = AppStorePurchase()
        purchase.transactionID = transactionID
        return try await self.purchase(.appStore(purchase))
    }

    /// Sends a Google Play purchase (its product ID and purchase token).
    public func purchase(playProductID productID: String, purchaseToken: String) async throws -> PurchaseOutcome {
        try await purchase(.playStore(PlayStorePurchase(productID: productID, purchaseToken: purchaseToken)))
    }

    /// Claims a web purchase with the redemption code the checkout gave.
    public func redeemWebPurchase(code: String) async throws -> PurchaseOutcome {
        try await purchase(.webRedemption(WebRedemption(code: code)))
    }

    /// Sends everything the device holds: signed App Store transactions, Google Play purchases, and App Store
    /// transaction IDs whose whole history the server reads from Apple.
    public func restore(
        signedTransactions: [String] = [], playPurchases: [(productID: String, purchaseToken: String)] = [],
        appStoreHistoryIDs: [String] = []
    ) async throws -> PurchaseOutcome {
        let generation = generation
        try await identifyIfNeeded()
        var request = RestoreRequest()
        request.appUserID = identity.appUserID
        request.appStore = signedTransactions.map { AppStorePurchase(signedTransaction: $0) }
        request.playStore = playPurchases.map { PlayStorePurchase(productID: $0.productID, purchaseToken: $0.purchaseToken) }
        request.appStoreTransactionIDs = appStoreHistoryIDs
        let response = try await call { try await transport.restore(request) }
        if let customer = response.customer { await publishServer(customer, generation: generation) }
        return PurchaseOutcome(
            results: response.results + response.appStoreHistories.flatMap(\.purchases), status: current,
            transferredFrom: response.transferredFromAppUserIDs)
    }

    private func purchase(_ purchase: PurchaseRequest.Purchase) async throws -> PurchaseOutcome {
        let generation = generation
        try await identifyIfNeeded()
        let request = PurchaseRequest(appUserID: identity.appUserID, purchase: purchase)
        let response = try await call { try await transport.purchase(request) }
        if let customer = response.customer { await publishServer(customer, generation: generation) }
        return PurchaseOutcome(
            results: response.result.map { [$0] } ?? [], status: current,
            transferredFrom: response.transferredFromAppUserID.isEmpty ? [] : [response.transferredFromAppUserID])
    }
}
