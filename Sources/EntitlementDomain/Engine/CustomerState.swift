
/// A customer as the API reports it: canonical ID, version and status at one instant.
public struct CustomerState: Sendable, Hashable {
    /// nil for an app user ID nobody has seen: such a user is INACTIVE at version 0 and is not created by a read.
    public var customerID: Int64?
    public var appUserID: String
    public var version: UInt64
    public var status: ComputedStatus

    public init(customerID: Int64?, appUserID: String, version: UInt64, status: ComputedStatus) {
        self.customerID = customerID
        self.appUserID = appUserID
        self.version = version
        self.status = status
    }

    /// The state of an app user ID that has no customer.
    public static func unknown(_ appUserID: String) -> CustomerState {
        CustomerState(customerID: nil, appUserID: appUserID, version: 0, status: .inactive)
    }
}

/// One message for a status stream.
public struct StatusUpdate: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case snapshot
        case changed(StatusChange)
    }

    public var kind: Kind
    public var state: CustomerState
    public var reason: String
    /// What made the change; nil for snapshots.
    public var cause: EventCause?
    /// When the write that made this change began on this instance (the call or store event arriving), for the
    /// push-latency metric; nil for replayed history and for changes another instance committed.
    public var origin: ContinuousClock.Instant?
    /// When `state` was computed, for history replayed from the event log: the event's time. nil for what is
    /// computed as it is sent (snapshots and live changes), which a stream stamps with its clock.
    public var computedAt: UnixTime?

    public init(
        kind: Kind, state: CustomerState, reason: String, cause: EventCause? = nil,
        origin: ContinuousClock.Instant? = nil, computedAt: UnixTime? = nil
    ) {
        self.kind = kind
        self.state = state
        self.reason = reason
        self.cause = cause
        self.origin = origin
        self.computedAt = computedAt
    }

    /// Equal when a stream would send the same message: `origin` is bookkeeping.
    public static func == (lhs: StatusUpdate, rhs: StatusUpdate) -> Bool {
        lhs.kind == rhs.kind && lhs.state == rhs.state && lhs.reason == rhs.reason && lhs.cause == rhs.cause
            && lhs.computedAt == rhs.computedAt
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(state)
        hasher.combine(reason)
        hasher.combine(cause)
        hasher.combine(computedAt)
    }
}
