public import RequestTracing

/// One message to one of a tenant's webhook endpoints, kept in the outbox from the transaction that made it until
/// it is delivered, and for the retention period after (the delivery log).
public struct WebhookDelivery: Hashable, Sendable {
    public enum State: Sendable, Hashable, CaseIterable {
        /// Waiting for its next attempt (or for an earlier event of the same customer to the same endpoint).
        case pending
        /// An attempt got a 2xx.
        case delivered
        /// Given up: every attempt of the schedule failed, or the endpoint was disabled (410) or removed. A
        /// redelivery makes it pending again.
        case failed
        /// Not a message but an entry of the delivery log (`webhook.exhausted`, `webhook.disabled`); never sent.
        case notice
    }

    /// The outbox's own sequence: later deliveries have higher IDs. 0 before it is stored.
    public var id: Int64
    public var tenantID: String
    public var endpointID: String
    /// The customer the event is about (a notice's: the failed delivery's).
    public var customerID: Int64?
    /// The customer's canonical app user ID when the event was recorded.
    public var appUserID: String
    /// The other customer's app user ID the event names (a transfer's, a merge's), which the body carries; empty
    /// when none. An erasure of that person finds the delivery by it.
    public var relatedAppUserID: String
    /// The customer's version after the event (a notice's: the failed delivery's).
    public var version: UInt64
    /// The `webhook-id` header: the same on every attempt and redelivery.
    public var messageID: String
    /// The body's `type` (`customer.renewal`, `webhook.exhausted`, ...).
    public var type: String
    /// The JSON body, exactly as signed and sent.
    public var body: [UInt8]
    public var createdAt: UnixTime
    public var state: State
    public var attempts: Int
    /// When the next attempt is due; nil unless pending.
    public var nextAttemptAt: UnixTime?
    public var lastAttemptAt: UnixTime?
    /// The HTTP status of the last attempt; nil when none came (unreachable, timed out) or none was made.
    public var lastStatus: Int?
    /// Why the last attempt failed (bounded, no secrets); empty when it did not.
    public var lastError: String
    public var deliveredAt: UnixTime?
    /// The ``RequestID`` of the call whose change queued it (empty for changes no call made, such as expiries): its
    /// attempts log under it.
    public var requestID: String

    /// `requestID` defaults to the call the current task works for.
    public init(
        id: Int64 = 0, tenantID: String, endpointID: String, customerID: Int64?, appUserID: String,
        relatedAppUserID: String = "", version: UInt64, messageID: String,
        type: String, body: [UInt8], createdAt: UnixTime, state: State = .pending, attempts: Int = 0,
        nextAttemptAt: UnixTime?, lastAttemptAt: UnixTime? = nil, lastStatus: Int? = nil, lastError: String = "",
        deliveredAt: UnixTime? = nil, requestID: String = RequestID.current ?? ""
    ) {
        self.id = id
        self.tenantID = tenantID
        self.endpointID = endpointID
        self.customerID = customerID
        self.appUserID = appUserID
        self.relatedAppUserID = relatedAppUserID
        self.version = version
        self.messageID = messageID
        self.type = type
        self.body = body
        self.createdAt = createdAt
        self.state = state
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastAttemptAt = lastAttemptAt
        self.lastStatus = lastStatus
        self.lastError = lastError
        self.deliveredAt = deliveredAt
        self.requestID = requestID
    }
}

/// Which deliveries of a tenant a listing or a redelivery takes. Every field narrows; nil means any.
public struct WebhookDeliveryFilter: Hashable, Sendable {
    public var tenantID: String
    public var endpointID: String?
    public var customerID: Int64?
    public var state: WebhookDelivery.State?
    /// Made at or after.
    public var createdFrom: UnixTime?
    /// Made before.
    public var createdBefore: UnixTime?
    /// Only IDs below this one (the listing's page position; newest first).
    public var beforeID: Int64?
    /// Only this delivery.
    public var deliveryID: Int64?

    public init(
        tenantID: String, endpointID: String? = nil, customerID: Int64? = nil, state: WebhookDelivery.State? = nil,
        createdFrom: UnixTime? = nil, createdBefore: UnixTime? = nil, beforeID: Int64? = nil, deliveryID: Int64? = nil
    ) {
        self.deliveryID = deliveryID
        self.tenantID = tenantID
        self.endpointID = endpointID
        self.customerID = customerID
        self.state = state
        self.createdFrom = createdFrom
        self.createdBefore = createdBefore
        self.beforeID = beforeID
    }
}

/// What one attempt did to a delivery, to be written back to the outbox.
public struct WebhookAttemptRecord: Hashable, Sendable {
    public var deliveryID: Int64
    /// The delivery's `webhook-id`: SQLite may give a deleted delivery's ID to a new one (an erasure deletes any),
    /// so the attempt is written only to the delivery it was made for.
    public var messageID: String
    public var tenantID: String
    public var attemptedAt: UnixTime
    public var status: Int?
    public var error: String
    /// pending (with `nextAttemptAt`), delivered or failed.
    public var state: WebhookDelivery.State
    public var nextAttemptAt: UnixTime?

    public init(
        deliveryID: Int64, messageID: String, tenantID: String, attemptedAt: UnixTime, status: Int?, error: String,
        state: WebhookDelivery.State, nextAttemptAt: UnixTime?
    ) {
        self.deliveryID = deliveryID
        self.messageID = messageID
        self.tenantID = tenantID
        self.attemptedAt = attemptedAt
        self.status = status
        self.error = error
        self.state = state
        self.nextAttemptAt = nextAttemptAt
    }
}

/// An endpoint a 410 turned off: nothing is sent to it until a redelivery for it turns it on again.
public struct DisabledWebhookEndpoint: Hashable, Sendable {
    public var tenantID: String
    public var endpointID: String
    public var disabledAt: UnixTime
    public var reason: String

    public init(tenantID: String, endpointID: String, disabledAt: UnixTime, reason: String) {
        self.tenantID = tenantID
        self.endpointID = endpointID
        self.disabledAt = disabledAt
        self.reason = reason
    }
}

/// A tenant's endpoint, as the outbox keys it.
public struct WebhookEndpointKey: Hashable, Sendable {
    public var tenantID: String
    public var endpointID: String

    public init(tenantID: String, endpointID: String) {
        self.tenantID = tenantID
        self.endpointID = endpointID
    }
}
