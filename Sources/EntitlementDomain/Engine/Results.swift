import BoundedText

/// What Identify did.
public struct IdentifyOutcome: Sendable, Hashable {
    public var state: CustomerState
    public var created: Bool
    public var merged: Bool
    /// ``AppAccountToken`` of the canonical app user ID, for StoreKit's `appAccountToken`.
    public var appAccountToken: String = ""
}

/// A grant with the canonical app user ID of its customer.
public struct GrantOutcome: Sendable, Hashable {
    public var grant: GrantRecord
    public var appUserID: String
}

/// A customer with everything GetCustomer shows.
public struct CustomerDetails: Sendable, Hashable {
    public var state: CustomerState
    public var aliases: [String]
    public var grants: [GrantRecord]
    public var purchases: [StorePurchase]
    /// By key.
    public var attributes: [CustomerAttribute]
    /// The newest ``Customers/shownOfferSignatures``, newest first.
    public var offerSignatures: [OfferSignatureRecord]
}

/// One recorded change, as ListCustomerEvents shows it.
public struct RecordedEvent: Sendable, Hashable {
    public var version: UInt64
    public var cause: EventCause
    public var change: StatusChange
    public var reason: String
    public var occurredAt: UnixTime
    public var status: ComputedStatus
    public var relatedAppUserID: String
    public var referenceID: String
    public var keyName: String

    init(_ record: EventRecord) {
        version = record.version
        cause = record.cause
        change = record.change
        reason = record.reason
        occurredAt = record.occurredAt
        status = ComputedStatus(storedBytes: record.status)
        relatedAppUserID = record.relatedAppUserID
        referenceID = record.referenceID
        keyName = record.keyName
    }
}

/// A page of events, newest first.
public struct EventPage: Sendable, Hashable {
    public static let defaultSize = 50
    public static let maximumSize = 500

    public var events: [RecordedEvent]
    /// Empty on the last page.
    public var nextPageToken: String

    /// Tokens name the version the next page starts below; opaque to clients.
    static func token(beforeVersion version: UInt64) -> String { "v\(version)" }

    static func version(fromToken token: String) throws(DomainError) -> UInt64? {
        guard !token.isEmpty else { return nil }
        guard token.hasPrefix("v"), token.utf8.count <= 21, let version = UInt64(token.dropFirst()), version > 0 else {
            throw .invalidRequest("page_token \(token.quotedForMessage) is not a token this server issued.")
        }
        return version
    }
}

/// An admin's grant, as GrantEntitlement asks for it.
public struct GrantRequest: Sendable, Hashable {
    public var appUserID: String
    public var entitlementID: String
    /// At most one of `expiresAt` and `duration`; neither means a lifetime grant.
    public var expiresAt: UnixTime?
    public var durationMilliseconds: Int64?
    public var reason: String
    public var idempotencyKey: String?

    public init(
        appUserID: String, entitlementID: String, expiresAt: UnixTime?, durationMilliseconds: Int64?, reason: String,
        idempotencyKey: String?
    ) {
        self.appUserID = appUserID
        self.entitlementID = entitlementID
        self.expiresAt = expiresAt
        self.durationMilliseconds = durationMilliseconds
        self.reason = reason
        self.idempotencyKey = idempotencyKey
    }

    func validate(for tenant: Tenant) throws(DomainError) {
        _ = try tenant.validateGrantable(entitlementID: entitlementID)
        guard expiresAt == nil || durationMilliseconds == nil else {
            throw .invalidRequest("Set expires_at or duration, not both.")
        }
        if let durationMilliseconds, durationMilliseconds <= 0 {
            throw .invalidRequest("duration must be positive.")
        }
        if let key = idempotencyKey, key.utf8.count > 256 {
            throw .invalidRequest("idempotency_key must be at most 256 bytes.")
        }
        guard reason.utf8.count <= 1024 else { throw .invalidRequest("reason must be at most 1024 bytes.") }
    }

    func expiry(from now: UnixTime) throws(DomainError) -> UnixTime? {
        if let expiresAt {
            guard expiresAt > now else { throw .invalidRequest("expires_at is in the past.") }
            return expiresAt
        }
        guard let durationMilliseconds else { return nil }
        // The duration is at most protobuf's 10,000 years, so the sum cannot overflow.
        let expiry = UnixTime(milliseconds: now.milliseconds + durationMilliseconds)
        guard UnixTime.representable.contains(expiry) else {
            throw .invalidRequest("duration would end after 9999-12-31T23:59:59Z, the latest time the API can carry.")
        }
        return expiry
    }
}
