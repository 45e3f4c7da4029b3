
/// What `Identify(app_user_id, anonymous_id)` must do, decided from what already exists. Pure: the services layer
/// resolves both IDs inside its write transaction, asks ``IdentityRules/plan(for:identified:anonymous:anonymousHasHistory:)``,
/// and carries out the answer in the same transaction.
public enum IdentifyPlan: Equatable, Sendable {
    /// Resolve to this customer; nothing to write. `app_user_id` is known (as canonical ID or alias), and the
    /// anonymous ID, if any, is unknown, already belongs to this customer, belongs to another identified customer
    /// (never merged), or is an anonymous-only customer without history (left alone: nothing to carry over).
    case existing(customerID: Int64)
    /// Create a customer with `app_user_id` as its canonical ID (`isAnonymous` = ``AppUserID/isAnonymous(_:)``).
    /// `app_user_id` is unknown and there is no anonymous customer to adopt: none was given, it is unknown, or it
    /// already belongs to an identified customer (which is never merged, so the new user starts empty).
    case create
    /// `app_user_id` is unknown and the anonymous ID belongs to an anonymous-only customer (with or without history):
    /// that customer becomes the identified user. `app_user_id` becomes its canonical ID, the anonymous ID (and any
    /// other ID it had) stays as an alias, `isAnonymous` becomes false. No data moves and versions continue; record
    /// one `merged` event on it (related ID: the anonymous ID).
    case adoptAnonymous(customerID: Int64)
    /// `app_user_id` belongs to customer `into` and the anonymous ID to a different, anonymous-only customer `from`
    /// with history: move `from`'s IDs, grants and purchases to `into` (the anonymous ID becomes an alias) and record
    /// a `merged` event on both.
    case mergeAnonymous(from: Int64, into: Int64)

    /// `IdentifyResponse.created`: the customer did not exist before this call.
    public var created: Bool {
        if case .create = self { return true }
        return false
    }

    /// `IdentifyResponse.merged`: the anonymous ID's customer was merged into this one by this call (adopting counts:
    /// the anonymous customer's history is now this user's).
    public var merged: Bool {
        switch self {
        case .adoptAnonymous, .mergeAnonymous: true
        case .existing, .create: false
        }
    }
}

/// A plan with the response flags, as ``IdentityRules/plan(appUserID:anonymousID:appUserCustomer:anonymousCustomer:anonymousHasHistory:)``
/// returns it.
public struct IdentifyDecision: Equatable, Sendable {
    public var plan: IdentifyPlan
    /// The validated request the plan is for (its `anonymousID` is nil when it was dropped).
    public var request: IdentifyRequest

    public init(plan: IdentifyPlan, request: IdentifyRequest) {
        self.plan = plan
        self.request = request
    }

    /// `IdentifyResponse.created`.
    public var created: Bool { plan.created }
    /// `IdentifyResponse.merged`.
    public var merged: Bool { plan.merged }
}

/// An `Identify` request with both IDs validated.
public struct IdentifyRequest: Hashable, Sendable {
    public var appUserID: String
    /// nil when none was sent, when `app_user_id` is itself anonymous (two anonymous IDs are never merged), or when
    /// it equals `app_user_id`.
    public var anonymousID: String?

    public init(appUserID: String, anonymousID: String?) {
        self.appUserID = appUserID
        self.anonymousID = anonymousID
    }
}

/// The rules of `Identify`:
/// - an unknown user is created;
/// - an anonymous ID with history and a new or anonymous-only identified ID is merged into the identified user
///   (a new identified ID adopts the anonymous customer; see ``IdentifyPlan``);
/// - an identified customer is never merged into another identified customer;
/// - an anonymous `app_user_id` is just resolved or created.
public enum IdentityRules {
    /// Validates both IDs: `app_user_id` by ``AppUserID/validate(_:field:)``; `anonymous_id` (empty means absent) by
    /// the same rules and must be anonymous (`$anon:`-prefixed). An `anonymous_id` equal to `app_user_id`, or sent
    /// with an anonymous `app_user_id`, is dropped: there is nothing to merge.
    public static func validate(appUserID: String, anonymousID: String?) throws(DomainError) -> IdentifyRequest {
        let appUserID = try AppUserID.validate(appUserID, field: "app_user_id")
        guard let anonymousID, !anonymousID.isEmpty else { return IdentifyRequest(appUserID: appUserID, anonymousID: nil) }
        try AppUserID.validate(anonymousID, field: "anonymous_id")
        guard AppUserID.isAnonymous(anonymousID) else {
            throw .invalidRequest(
                "anonymous_id must be an anonymous ID starting with \"\(AppUserID.anonymousPrefix)\"; "
                    + "an identified ID is never merged into another")
        }
        if anonymousID.utf8.elementsEqual(appUserID.utf8) || AppUserID.isAnonymous(appUserID) {
            return IdentifyRequest(appUserID: appUserID, anonymousID: nil)
        }
        return IdentifyRequest(appUserID: appUserID, anonymousID: anonymousID)
    }

    /// Validation and plan in one step, for a caller that resolved both IDs as sent (after checking each with
    /// ``AppUserID/validate(_:field:)``, which is enough to look them up).
    /// - Parameters:
    ///   - appUserCustomer: the customer `appUserID` resolves to, nil when unknown.
    ///   - anonymousCustomer: the customer `anonymousID` resolves to, nil when unknown or not sent.
    /// - Throws: `INVALID_ARGUMENT` as ``validate(appUserID:anonymousID:)`` does.
    public static func plan(
        appUserID: String, anonymousID: String?, appUserCustomer: CustomerRecord?, anonymousCustomer: CustomerRecord?,
        anonymousHasHistory: Bool
    ) throws(DomainError) -> IdentifyDecision {
        let request = try validate(appUserID: appUserID, anonymousID: anonymousID)
        let plan = plan(
            for: request, identified: appUserCustomer, anonymous: request.anonymousID == nil ? nil : anonymousCustomer,
            anonymousHasHistory: anonymousHasHistory)
        return IdentifyDecision(plan: plan, request: request)
    }

    /// The plan for a validated request.
    /// - Parameters:
    ///   - identified: the customer `request.appUserID` resolves to (canonical ID or alias), nil when unknown.
    ///   - anonymous: the customer `request.anonymousID` resolves to, nil when unknown or not sent.
    ///   - anonymousHasHistory: whether `anonymous` has anything worth carrying over (``hasHistory(_:)``).
    public static func plan(
        for request: IdentifyRequest, identified: CustomerRecord?, anonymous: CustomerRecord?,
        anonymousHasHistory: Bool
    ) -> IdentifyPlan {
        // Only an anonymous-only customer is ever folded into another; one that already has an identified ID is
        // another user's, and is left alone.
        let foldable = request.anonymousID == nil ? nil : anonymous.flatMap { $0.isAnonymous ? $0 : nil }
        guard let identified else {
            if let foldable { return .adoptAnonymous(customerID: foldable.id) }
            return .create
        }
        if let foldable, foldable.id != identified.id, anonymousHasHistory, !identified.isAnonymous {
            return .mergeAnonymous(from: foldable.id, into: identified.id)
        }
        return .existing(customerID: identified.id)
    }

    /// Whether an anonymous customer has history worth merging: any grant (even expired or revoked), or any change
    /// after creation (creation writes one event, version 1; every grant, purchase or merge adds one).
    public static func hasHistory(_ snapshot: CustomerSnapshot) -> Bool {
        !snapshot.grants.isEmpty || !snapshot.purchases.isEmpty || snapshot.customer.version > 1
    }
}
