import BoundedText

/// Offers (README, "Offers"): which of the tenant's App Store offers a customer may have, judged on its purchases in
/// every store by ``OfferRules``, and each signature made, recorded on the customer in the same transaction that
/// checked its rules (so two calls at once never both pass a limit).
public final class Offers: Sendable {
    let core: EngineCore
    let repository: any CustomerReads & OfferSignatureReads

    /// At most this many products per eligibility call.
    public static let maximumProducts = 100

    init(core: EngineCore, repository: any CustomerReads & OfferSignatureReads) {
        self.core = core
        self.repository = repository
    }

    /// GetOfferEligibility: for each of `productIDs`, whether its introductory offer is for the customer, and which
    /// of the promotional offers set up on it the customer may have now (each with the rule that refuses it).
    public func eligibility(tenant: Tenant, appUserID: String, productIDs: [String]) throws(DomainError)
        -> OfferEligibility
    {
        let appUserID = try AppUserID.validate(appUserID)
        let offers = try Self.offers(of: tenant)
        try Self.checkProducts(productIDs, tenant: tenant)
        let snapshot = try DomainError.reading { () throws(StorageError) in
            try repository.snapshot(tenantID: tenant.id, appUserID: appUserID)
        }
        let now = core.now()
        var eligibility = OfferEligibility(appUserID: snapshot?.customer.appUserID ?? appUserID)
        var signedByOffer: [String: Int] = [:]
        for productID in productIDs {
            let history = snapshot.map { snapshot in
                Self.history(
                    snapshot, scope: Set(tenant.products[productID] ?? []), stores: offers.introductory.stores, at: now)
            }
            eligibility.introductory.append((productID, OfferRules.introductory(history: history)))
            for (offerID, rules) in offers.promotional.sorted(by: { $0.key < $1.key }) where rules.productIDs.contains(productID) {
                let history = Self.history(snapshot, scope: rules.scope(in: tenant.products), at: now)
                // Counted once per offer, however many of the products asked about it is set up on.
                let signed: Int
                if let counted = signedByOffer[offerID] {
                    signed = counted
                } else {
                    signed = try snapshot.map { snapshot throws(DomainError) in
                        try DomainError.reading { () throws(StorageError) in
                            try Self.signedInPeriod(rules, at: now) { (since) throws(StorageError) in
                                try repository.offerSignatureCount(
                                    tenantID: tenant.id, customerID: snapshot.customer.id, offerID: offerID, since: since)
                            }
                        }
                    } ?? 0
                    signedByOffer[offerID] = signed
                }
                let refusal = OfferRules.promotional(
                    offerID: offerID, rules, productID: productID, history: history, signedInPeriod: signed, at: now)
                eligibility.promotional.append(PromotionalOfferDecision(offerID: offerID, productID: productID, refusal: refusal))
            }
        }
        return eligibility
    }

    /// SignOffer: checks the offer's rules for the customer `appUserID` names (its canonical ID; created on first
    /// sight), then has `sign` make the signature and records it (a customer event and a row the limits count), in one
    /// transaction. `FAILED_PRECONDITION` naming the rule when it refuses; nothing is recorded then.
    public func sign<Signed: Sendable>(
        tenant: Tenant, appUserID: String, request: OfferSignatureRequest,
        sign: @escaping @Sendable (OfferSignatureInput) throws(DomainError) -> Signed
    ) async throws(DomainError) -> Signed {
        let appUserID = try AppUserID.validate(appUserID)
        let offers = try Self.offers(of: tenant)
        try Self.checkProducts([request.productID], tenant: tenant)
        let promotional = try request.offerID.map { offerID throws(DomainError) in
            guard let rules = offers.promotional[offerID] else {
                throw DomainError.notFound(
                    "No promotional offer \(offerID.quotedForMessage) is configured (app_store.offers.promotional).")
            }
            return (offerID, rules)
        }
        try request.appTransactionID.map { id throws(DomainError) in try Self.checkAppTransactionID(id) }
        let tenantID = tenant.id
        return try await core.write(orderedBy: WriteOrder.customer(tenantID, appUserID: appUserID)) {
            transaction, now throws -> (Signed, [CommittedChange]) in
            let existing = try transaction.snapshot(tenantID: tenantID, appUserID: appUserID)
            if let existing, existing.customer.appUserID != appUserID {
                throw DomainError.aliasOfAnotherUser(appUserID, anApp: "asks for offers for")
            }
            var committed: [CommittedChange] = []
            let customer: CustomerSnapshot
            if let existing {
                customer = existing
            } else {
                customer = try self.core.customer(
                    transaction, tenantID: tenantID, appUserID: appUserID, creator: "SignOffer", at: now,
                    committed: &committed)
            }
            let customerID = customer.customer.id
            let transactionID = try Self.transactionID(request, of: customer)
            if let promotional {
                let (offerID, rules) = promotional
                let signed = try Self.signedInPeriod(rules, at: now) { (since) throws(StorageError) in
                    try transaction.offerSignatureCount(tenantID: tenantID, customerID: customerID, offerID: offerID, since: since)
                }
                let history = Self.history(customer, scope: rules.scope(in: tenant.products), at: now)
                if let refusal = OfferRules.promotional(
                    offerID: offerID, rules, productID: request.productID, history: history, signedInPeriod: signed, at: now)
                {
                    throw Self.refused(refusal)
                }
            } else {
                let history = existing.map {
                    Self.history(
                        $0, scope: Set(tenant.products[request.productID] ?? []), stores: offers.introductory.stores, at: now)
                }
                let decision = OfferRules.introductory(history: history)
                if let refusal = OfferRules.introductorySignatureRefusal(decision, appUserID: appUserID) {
                    throw Self.refused(refusal)
                }
                guard transactionID != nil else {
                    throw DomainError.invalidRequest(
                        "An introductory offer eligibility signature names one of the customer's App Store transactions, "
                            + "and the server knows none: pass app_transaction_id (AppTransaction's appTransactionID).")
                }
            }
            let input = OfferSignatureInput(
                productID: request.productID, offerID: request.offerID,
                appAccountToken: AppAccountToken.derive(tenantID: tenantID, appUserID: customer.customer.appUserID),
                transactionID: transactionID, nonce: request.nonce, signedAt: now)
            let signed = try sign(input)
            try transaction.recordOfferSignature(
                OfferSignatureRecord(
                    tenantID: tenantID, customerID: customerID, offerID: request.offerID ?? "", productID: request.productID,
                    nonce: request.nonce, signedAt: now))
            let what = request.offerID.map { "promotional offer \($0.quotedForMessage)" }
                ?? "introductory offer eligibility (not allowed)"
            committed.append(
                try self.core.recordChange(
                    transaction, of: customer, cause: .offerSigned,
                    reason: "Signed \(what) for \(request.productID.quotedForMessage).", reference: request.nonce,
                    subject: .none, at: now))
            return (signed, committed)
        }
    }

    // MARK: Rules' inputs

    private static func offers(of tenant: Tenant) throws(DomainError) -> AppStoreOffers {
        guard let appStore = tenant.appStore, appStore.serverAPI != nil else { throw notSigning() }
        return appStore.offers
    }

    /// What a call about offers answers for a tenant without an In-App Purchase key.
    public static func notSigning(file: String = #fileID, line: Int = #line) -> DomainError {
        .tenantMisconfigured(
            "The tenant signs no App Store offers: configure app_store.server_api (the In-App Purchase key) and "
                + "app_store.offers.", file: file, line: line)
    }

    private static func checkProducts(_ productIDs: [String], tenant: Tenant) throws(DomainError) {
        guard (1...maximumProducts).contains(productIDs.count) else {
            throw .invalidRequest("product_ids lists 1 to \(maximumProducts) products, got \(productIDs.count).")
        }
        for (index, id) in productIDs.enumerated() {
            guard tenant.products[id] != nil else {
                throw .invalidRequest(
                    "product \(id.quotedForMessage) is not one of the tenant's products (its \"products\" mapping).")
            }
            if sellsElsewhereOnly(id, tenant: tenant) {
                throw .invalidRequest(
                    "product \(id.quotedForMessage) is sold on Google Play or the web, not the App Store: offers here are "
                        + "StoreKit's.")
            }
            if productIDs[..<index].contains(id) { throw .invalidRequest("product \(id.quotedForMessage) is listed twice.") }
        }
    }

    /// A product the tenant's Google Play or Stripe settings name and its App Store settings do not.
    private static func sellsElsewhereOnly(_ id: String, tenant: Tenant) -> Bool {
        guard tenant.appStore?.products[id] == nil else { return false }
        let web = tenant.stripe.map { $0.prices.values.contains(id) || $0.products.values.contains(id) } ?? false
        return web || tenant.playStore?.products[id] != nil
    }

    /// App transaction IDs are Apple's decimal numbers.
    private static func checkAppTransactionID(_ id: String) throws(DomainError) {
        guard (1...32).contains(id.utf8.count), id.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw .invalidRequest("app_transaction_id is AppTransaction's appTransactionID: 1 to 32 decimal digits.")
        }
    }

    /// The transaction the JWS formats name: the app's own app transaction ID, one of the customer's App Store
    /// transactions it names, or else the customer's newest; nil when it has none.
    private static func transactionID(_ request: OfferSignatureRequest, of customer: CustomerSnapshot) throws(DomainError)
        -> String?
    {
        if let appTransactionID = request.appTransactionID { return appTransactionID }
        let own = customer.purchases.filter { $0.store == .appStore }
        guard let named = request.transactionID else {
            return own.max { $0.purchasedAt < $1.purchasedAt }?.transactionID
        }
        guard own.contains(where: { $0.transactionID == named || $0.originalTransactionID == named }) else {
            throw .invalidRequest(
                "transaction_id \(named.quotedForMessage) is not one of this customer's App Store transactions.")
        }
        return named
    }

    private static func history(
        _ snapshot: CustomerSnapshot?, scope: Set<String>, stores: Set<Store> = Set(Store.allCases), at now: UnixTime
    ) -> OfferHistory {
        OfferHistory(purchases: snapshot?.purchases ?? [], scope: scope, stores: stores, at: now)
    }

    /// The signatures the offer's limit counts (0 without one), read by `count` from the period's start.
    private static func signedInPeriod(
        _ rules: PromotionalOfferRules, at now: UnixTime, _ count: (UnixTime) throws(StorageError) -> Int
    ) throws(StorageError) -> Int {
        guard let limit = rules.limit else { return 0 }
        return try count(now.adding(days: -limit.days))
    }

    private static func refused(_ refusal: OfferRefusal) -> DomainError {
        .wrongState("offer refused by rule \"\(refusal.rule.rawValue)\": \(refusal.message)")
    }
}

extension IntroductoryOfferHistory {
    /// The stores whose subscriptions count.
    var stores: Set<Store> {
        switch self {
        case .allStores: Set(Store.allCases)
        case .appStore: [.appStore]
        }
    }
}

/// What SignOffer asks for: a promotional offer's signature (`offerID` set) or an introductory offer eligibility JWS.
public struct OfferSignatureRequest: Sendable, Hashable {
    public var productID: String
    public var offerID: String?
    /// One of the customer's App Store transaction IDs for the JWS to name; nil: its newest.
    public var transactionID: String?
    /// The app's own `AppTransaction.appTransactionID`, named instead of a purchase's.
    public var appTransactionID: String?
    /// A fresh lowercase UUID, recorded with the signature.
    public var nonce: String

    public init(productID: String, offerID: String?, transactionID: String?, appTransactionID: String?, nonce: String) {
        self.productID = productID
        self.offerID = offerID
        self.transactionID = transactionID
        self.appTransactionID = appTransactionID
        self.nonce = nonce
    }
}

/// What a signature is made over, once the rules passed.
public struct OfferSignatureInput: Sendable, Hashable {
    public var productID: String
    public var offerID: String?
    /// The customer's token (``AppAccountToken``): the purchase must carry it, so the signature serves this user only.
    public var appAccountToken: String
    /// The transaction the JWS names; nil when the customer has none (a promotional offer's JWS then names none).
    public var transactionID: String?
    public var nonce: String
    public var signedAt: UnixTime
}

/// GetOfferEligibility's answer.
public struct OfferEligibility: Sendable {
    /// The canonical app user ID, or the ID asked about when the server knows no such customer.
    public var appUserID: String
    public var introductory: [(productID: String, decision: IntroductoryOfferDecision)] = []
    public var promotional: [PromotionalOfferDecision] = []
}

/// Whether one promotional offer on one product is for the customer now.
public struct PromotionalOfferDecision: Sendable, Hashable {
    public var offerID: String
    public var productID: String
    /// nil: eligible.
    public var refusal: OfferRefusal?
}
