
/// What one ID a support person has in hand leads to: a customer (by its app user ID, one of its aliases, or a
/// purchase it owns), or a purchase nobody owns yet.
public struct CustomerMatch: Hashable, Sendable {
    public enum MatchedBy: Hashable, Sendable, CaseIterable {
        /// The customer's canonical app user ID.
        case appUserID
        /// An alias of the customer (an anonymous ID merged into it, or one Identify linked).
        case alias
        /// The customer's `$email` attribute, ignoring case.
        case email
        /// A purchase's original transaction ID (App Store), purchase token (Google Play) or subscription or
        /// payment intent (Stripe).
        case originalTransactionID
        /// A purchase's latest transaction ID (App Store), latest order ID (Google Play, `GPA.…`) or latest
        /// invoice (Stripe): what the newest receipt shows.
        case transactionID
        /// Another Stripe ID a web purchase was made under: a checkout session (`cs_`) or customer (`cus_`).
        case storeReference
    }

    /// The owner's canonical app user ID; empty for a purchase nobody owns.
    public var appUserID: String
    public var matchedBy: MatchedBy
    /// The purchase matched; nil for a match by app user ID or alias.
    public var store: Store?
    public var originalTransactionID: String

    public init(appUserID: String, matchedBy: MatchedBy, store: Store? = nil, originalTransactionID: String = "") {
        self.appUserID = appUserID
        self.matchedBy = matchedBy
        self.store = store
        self.originalTransactionID = originalTransactionID
    }
}

extension SubscriberQueries {
    public static let maxSearchBytes = 512
    /// More matches than a person reads through; one ID rarely names more than a handful.
    public static let maxSearchMatches = 20

    /// Everything `query` names in the tenant, exact matches only (IDs are case-sensitive; an e-mail address is
    /// not), customers by their IDs first, then by `$email`, then purchases. Read from the database.
    public func findCustomers(tenantID: String, query: String) throws(DomainError) -> [CustomerMatch] {
        guard !query.isEmpty, query.utf8.count <= Self.maxSearchBytes else {
            throw .invalidRequest(
                "query must be 1 to \(Self.maxSearchBytes) bytes: an app user ID, alias, e-mail address, transaction ID or "
                    + "order ID.")
        }
        if let scalar = query.unicodeScalars.first(where: AppUserID.isControl) {
            throw .invalidRequest("query contains the control character \(AppUserID.codePoint(scalar)); no ID does.")
        }
        return try DomainError.reading { () throws(StorageError) in
            try repository.customerMatches(tenantID: tenantID, id: query, limit: Self.maxSearchMatches)
        }
    }
}
