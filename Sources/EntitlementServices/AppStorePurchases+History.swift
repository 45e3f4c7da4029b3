import AppStoreServerAPI
import EntitlementDomain

/// A customer's App Store purchases as Apple's transaction history shows them, every transaction verified.
struct AppStoreHistory: Sendable {
    /// The transaction ID the history was read for.
    var transactionID: String
    var environment: AppStoreAPIEnvironment
    /// Signed transactions Apple returned, over all pages.
    var transactionsFound: Int
    /// The newest state of each purchase, one per original transaction ID, in the order Apple first listed them.
    var purchases: [StorePurchase]
    /// Every transaction ID in the history: another of them names the same history.
    var transactionIDs: Set<String>
}

extension AppStorePurchases {
    /// Reads the whole transaction history of the customer behind `transactionID` (Get Transaction History v2,
    /// production then sandbox as the tenant accepts them), verifies every transaction as a device's, and keeps the
    /// newest state of each purchase; subscriptions get their renewal state from Get All Subscription Statuses.
    ///
    /// A product the tenant maps to nothing is kept, granting nothing: the history is Apple's record of the customer,
    /// and one unmapped product must not hide the others.
    func history(ofTransactionID transactionID: String, tenant: Tenant, apis: AppStoreServerAPIs) async throws(DomainError)
        -> AppStoreHistory
    {
        let settings = try Self.settings(of: tenant)
        let (client, environments) = try apis.client(for: tenant, settings: settings, use: .restoreFromHistory)
        let history = try await Self.asking { () async throws(AppStoreServerAPIError) in
            try await client.transactionHistory(transactionID, in: environments)
        }
        var newest: [String: StorePurchase] = [:]
        var order: [String] = []
        var transactionIDs: Set<String> = [transactionID]
        for (index, token) in history.signedTransactions.enumerated() {
            var record: StorePurchase
            do throws(DomainError) {
                record = try AppStoreInterpretation.purchase(
                    from: try verifiedTransaction(token, tenant: tenant, settings: settings), tenant: tenant,
                    settings: settings, unmappedGrantsNothing: true)
            } catch {
                throw DomainError(error.code, "transaction \(index + 1) of Apple's history: \(error.message)")
            }
            record.origin = .storeAPI
            transactionIDs.insert(record.transactionID)
            if let held = newest[record.originalTransactionID] {
                newest[record.originalTransactionID] = PurchaseVersions.merge(stored: held, incoming: record)
            } else {
                order.append(record.originalTransactionID)
                newest[record.originalTransactionID] = record
            }
        }
        if newest.values.contains(where: { AppStoreInterpretation.isSubscription($0, settings: settings) }) {
            // The history carries transactions only; auto-renew, grace and billing retry are in the renewal info.
            let statuses = try await Self.asking { () async throws(AppStoreServerAPIError) in
                try await client.subscriptionStatuses(transactionID, in: history.environment)
            }
            for status in statuses {
                guard let held = newest[status.originalTransactionId] else { continue }
                let current = try subscription(status, tenant: tenant, settings: settings, unmappedGrantsNothing: true)
                newest[status.originalTransactionId] = PurchaseVersions.merge(stored: held, incoming: current)
            }
        }
        return AppStoreHistory(
            transactionID: transactionID, environment: history.environment,
            transactionsFound: history.signedTransactions.count, purchases: order.compactMap { newest[$0] },
            transactionIDs: transactionIDs)
    }
}
