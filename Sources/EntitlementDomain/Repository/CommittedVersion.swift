/// A customer's version as some transaction committed it: what instances sharing one database tell each other, so
/// each refreshes its cache and its open streams.
public struct CommittedVersion: Sendable, Hashable {
    public let tenantID: String
    public let customerID: Int64
    public let version: UInt64

    public init(tenantID: String, customerID: Int64, version: UInt64) {
        self.tenantID = tenantID
        self.customerID = customerID
        self.version = version
    }
}
