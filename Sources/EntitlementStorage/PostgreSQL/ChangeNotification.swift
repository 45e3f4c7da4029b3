import EntitlementDomain

/// The payload of the NOTIFY a committing write transaction sends on ``channel``: who sent it, then the versions
/// it committed, `tenant:customer:version` separated by commas (tenant IDs are `a-z0-9_-`). PostgreSQL refuses
/// payloads of 8000 bytes or more; a transaction with more to say sends ``catchUp`` instead, and listeners then
/// re-read what changed lately.
struct ChangeNotification: Equatable {
    static let channel = "entitlementd_changes"
    /// Well under PostgreSQL's 8000-byte limit.
    static let maxPayloadBytes = 7000

    /// The sending instance's tag (``PostgresRepository/instanceTag``): an instance skips its own notifications.
    var sender: String
    /// Empty with `catchUp`.
    var versions: [CommittedVersion]
    var catchUp: Bool

    var payload: String {
        sender + "|" + (catchUp ? "*" : versions.map { "\($0.tenantID):\($0.customerID):\($0.version)" }.joined(separator: ","))
    }

    /// The notification for `versions`, or a catch-up when their list would not fit.
    init(sender: String, versions: [CommittedVersion]) {
        self.sender = sender
        self.versions = versions
        catchUp = false
        if payload.utf8.count > Self.maxPayloadBytes {
            self.versions = []
            catchUp = true
        }
    }

    /// Reads a payload; nil for one this build did not send.
    init?(payload: String) {
        guard let bar = payload.firstIndex(of: "|") else { return nil }
        sender = String(payload[..<bar])
        let list = payload[payload.index(after: bar)...]
        if list == "*" {
            versions = []
            catchUp = true
            return
        }
        catchUp = false
        var versions: [CommittedVersion] = []
        for entry in list.split(separator: ",") {
            let fields = entry.split(separator: ":", omittingEmptySubsequences: false)
            guard fields.count == 3, !fields[0].isEmpty, let customerID = Int64(fields[1]), let version = UInt64(fields[2])
            else { return nil }
            versions.append(CommittedVersion(tenantID: String(fields[0]), customerID: customerID, version: version))
        }
        self.versions = versions
    }
}
