/// One entry of a tenant's audit log: an operator's call that reached a customer's personal data as a whole (an
/// export, an erasure), with the key that made it. Kept apart from customers' events, which an erasure removes.
public struct AuditEvent: Hashable, Sendable {
    public enum Action: String, Sendable, Hashable, CaseIterable {
        /// `ExportCustomer`: everything stored about a customer was read out.
        case customerExported = "customer.exported"
        /// `DeleteCustomer`: a customer was erased.
        case customerDeleted = "customer.deleted"
    }

    /// Set by the database; 0 before it is stored.
    public var id: Int64
    public var tenantID: String
    public var occurredAt: UnixTime
    public var action: Action
    /// The name of the API key that made the call.
    public var keyName: String
    /// The call's request ID, to find its log lines.
    public var requestID: String
    /// Whom it was about: the app user ID of an export; the keyed hash of an erased customer's app user ID
    /// (``ErasedCustomer``), never the ID itself.
    public var subject: String

    public init(
        id: Int64 = 0, tenantID: String, occurredAt: UnixTime, action: Action, keyName: String, requestID: String,
        subject: String
    ) {
        self.id = id
        self.tenantID = tenantID
        self.occurredAt = occurredAt
        self.action = action
        self.keyName = keyName
        self.requestID = requestID
        self.subject = subject
    }
}

/// A page of the audit log, newest first.
public struct AuditPage: Hashable, Sendable {
    public var events: [AuditEvent]
    /// Empty on the last page.
    public var nextPageToken: String
}
