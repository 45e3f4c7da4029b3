public import Foundation

/// What the user may unlock, as the app gates on it: nothing known yet, some entitlements active, or none.
public enum SubscriptionStatus: Sendable, Hashable, Codable {
    /// Nothing was ever known for this user (no server answer, no cache, no local store data): show neither the
    /// paywall nor the content yet.
    case unknown
    case active(Set<Entitlement>)
    case inactive

    /// The active entitlements (empty unless `.active`).
    public var entitlements: Set<Entitlement> {
        if case .active(let entitlements) = self { entitlements } else { [] }
    }

    /// The IDs of the active entitlements: what a change of the set compares.
    public var entitlementIDs: Set<String> { Set(entitlements.map(\.id)) }

    /// Whether the entitlement `id` is active.
    public func isActive(_ id: String) -> Bool { entitlements.contains { $0.id == id } }
}

/// One active entitlement and the details of what grants it.
public struct Entitlement: Sendable, Hashable, Codable {
    /// Where an entitlement comes from.
    public enum Source: String, Sendable, Hashable, Codable {
        case appStore, playStore, web, grant
        /// The device's own store data (StoreKit), not yet confirmed by the server.
        case local
        case unknown
    }

    public var id: String
    public var source: Source
    public var productID: String
    /// nil: never expires.
    public var expiresAt: Date?
    public var willRenew: Bool
    public var inGracePeriod: Bool
    public var inBillingRetry: Bool

    public init(
        id: String, source: Source, productID: String, expiresAt: Date?, willRenew: Bool = false,
        inGracePeriod: Bool = false, inBillingRetry: Bool = false
    ) {
        self.id = id
        self.source = source
        self.productID = productID
        self.expiresAt = expiresAt
        self.willRenew = willRenew
        self.inGracePeriod = inGracePeriod
        self.inBillingRetry = inBillingRetry
    }
}

/// A status with where it came from and how new it is.
public struct StatusSnapshot: Sendable, Hashable, Codable {
    /// Where the value was read.
    public enum Origin: String, Sendable, Hashable, Codable {
        /// A server answer (SyncStatus, a stream event, a purchase) in this run.
        case server
        /// The last server answer of an earlier run, from the cache.
        case cache
        /// The last signed server answer, verified, while the server cannot be reached: trusted until its offline
        /// validity (``StatusSnapshot/validUntil``) ends, then the status is `unknown`.
        case offline
        /// The device's own store data alone.
        case device
    }

    public var appUserID: String
    public var status: SubscriptionStatus
    /// The server's version of the customer (0 when no server answer was ever seen).
    public var version: UInt64
    public var origin: Origin
    /// When the server answered (for a cached value: the age is `now - receivedAt`).
    public var receivedAt: Date
    /// The server's signed form of this status (`signed_status`), when the app pins the tenant's status keys: what
    /// the cache keeps and checks again on the next launch.
    public var signedStatus: String?
    /// Until when the signed status may stand in for the server (its `exp`); nil for an unsigned status.
    public var validUntil: Date?

    public init(
        appUserID: String, status: SubscriptionStatus, version: UInt64, origin: Origin, receivedAt: Date,
        signedStatus: String? = nil, validUntil: Date? = nil
    ) {
        self.appUserID = appUserID
        self.status = status
        self.version = version
        self.origin = origin
        self.receivedAt = receivedAt
        self.signedStatus = signedStatus
        self.validUntil = validUntil
    }

    /// How old the value is: for a cached one, how long ago the server said it.
    public func age(at now: Date = Date()) -> TimeInterval { now.timeIntervalSince(receivedAt) }

    /// Nothing known for `appUserID`.
    public static func unknown(_ appUserID: String) -> Self {
        Self(appUserID: appUserID, status: .unknown, version: 0, origin: .device, receivedAt: .distantPast)
    }

    /// How `next` differs from this snapshot: the set of active entitlements, only their details (an expiry, a
    /// renewal state), or nothing the app sees.
    public func change(to next: StatusSnapshot) -> StatusChange? {
        if status.entitlementIDs != next.status.entitlementIDs || isUnknown != next.isUnknown { return .entitlements }
        return status == next.status ? nil : .details
    }

    var isUnknown: Bool { status == .unknown }
}

/// What kind of change an observer is told about, as the server's event kinds say it.
public enum StatusChange: Sendable, Hashable {
    /// The set of active entitlements changed: something was gained or lost.
    case entitlements
    /// The same entitlements, other details (an expiry date, will renew, grace or billing retry, a product).
    case details
}
