import CivilCalendar
/// A point in time as stored: milliseconds since the Unix epoch (the stores' own unit).
public struct UnixTime: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var milliseconds: Int64

    public init(milliseconds: Int64) {
        self.milliseconds = milliseconds
    }

    public static func < (lhs: UnixTime, rhs: UnixTime) -> Bool { lhs.milliseconds < rhs.milliseconds }

    /// The times the API can carry: protobuf's `Timestamp` spans 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z,
    /// and a stored time outside it could never be served (JSON mappings and client libraries refuse it).
    public static let representable =
        UnixTime(milliseconds: -62_135_596_800_000)...UnixTime(milliseconds: 253_402_300_799_999)

    public var description: String { "\(milliseconds)ms" }

    /// RFC 3339 in UTC to the second (`2030-01-31T12:00:00Z`), for messages people read.
    public var rfc3339: String {
        CivilCalendar.iso8601(seconds: seconds)
    }
}

/// A customer: one canonical app user ID with its aliases, keyed by tenant.
public struct CustomerRecord: Hashable, Sendable {
    /// The database's own key; stable across merges for the surviving customer.
    public var id: Int64
    public var tenantID: String
    /// The canonical app user ID: every alias resolves to it.
    public var appUserID: String
    /// True while every ID of this customer is anonymous (`$anon:` prefix).
    public var isAnonymous: Bool
    /// Grows by one with every event.
    public var version: UInt64
    public var createdAt: UnixTime
    /// When status next changes by time alone (an expiry or a start), for the expiry scheduler; nil when never.
    public var nextChangeAt: UnixTime?

    public init(
        id: Int64, tenantID: String, appUserID: String, isAnonymous: Bool, version: UInt64, createdAt: UnixTime,
        nextChangeAt: UnixTime?
    ) {
        self.id = id
        self.tenantID = tenantID
        self.appUserID = appUserID
        self.isAnonymous = isAnonymous
        self.version = version
        self.createdAt = createdAt
        self.nextChangeAt = nextChangeAt
    }
}

/// An entitlement granted by an admin with a secret key.
public struct GrantRecord: Hashable, Sendable {
    public var grantID: String
    public var tenantID: String
    public var customerID: Int64
    public var entitlementID: String
    public var startsAt: UnixTime
    /// nil: lifetime.
    public var expiresAt: UnixTime?
    public var revokedAt: UnixTime?
    public var reason: String
    public var revocationReason: String
    /// Retries with the same key return this grant instead of making another.
    public var idempotencyKey: String?

    public init(
        grantID: String, tenantID: String, customerID: Int64, entitlementID: String, startsAt: UnixTime,
        expiresAt: UnixTime?, revokedAt: UnixTime?, reason: String, revocationReason: String, idempotencyKey: String?
    ) {
        self.grantID = grantID
        self.tenantID = tenantID
        self.customerID = customerID
        self.entitlementID = entitlementID
        self.startsAt = startsAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
        self.reason = reason
        self.revocationReason = revocationReason
        self.idempotencyKey = idempotencyKey
    }
}

/// One change to a customer, written in the same transaction as the change.
public struct EventRecord: Hashable, Sendable {
    public var tenantID: String
    public var customerID: Int64
    /// The customer's version after this change.
    public var version: UInt64
    public var cause: EventCause
    public var change: StatusChange
    public var reason: String
    public var occurredAt: UnixTime
    /// The customer's status after the change, as the services layer encoded it (opaque to storage).
    public var status: [UInt8]
    /// The other customer in a merge or transfer, if any.
    public var relatedAppUserID: String
    /// What the event is about: a grant ID, a transaction ID, a notification UUID.
    public var referenceID: String
    /// The name of the API key whose call made the change; empty when no call did (a store notification, an expiry).
    public var keyName: String

    public init(
        tenantID: String, customerID: Int64, version: UInt64, cause: EventCause, change: StatusChange, reason: String,
        occurredAt: UnixTime, status: [UInt8], relatedAppUserID: String, referenceID: String, keyName: String = ""
    ) {
        self.tenantID = tenantID
        self.customerID = customerID
        self.version = version
        self.cause = cause
        self.change = change
        self.reason = reason
        self.occurredAt = occurredAt
        self.status = status
        self.relatedAppUserID = relatedAppUserID
        self.referenceID = referenceID
        self.keyName = keyName
    }
}

/// Everything status depends on for one customer, read consistently.
public struct CustomerSnapshot: Hashable, Sendable {
    public var customer: CustomerRecord
    /// Every app user ID that resolves to this customer except the canonical one, oldest first.
    public var aliases: [String]
    public var grants: [GrantRecord]
    /// The store purchases the customer owns, oldest first.
    public var purchases: [StorePurchase]

    public init(
        customer: CustomerRecord, aliases: [String], grants: [GrantRecord], purchases: [StorePurchase] = []
    ) {
        self.customer = customer
        self.aliases = aliases
        self.grants = grants
        self.purchases = purchases
    }
}
