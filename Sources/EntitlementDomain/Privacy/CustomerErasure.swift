import Crypto
import Encodings

/// What ``CustomerStorage``'s erasure removes of one person, as the domain decides it (README, "Erasing a
/// customer"): the customer and the customers merged into it, every app user ID and app account token they had,
/// and whether the purchases' accounting records go too or stay, pseudonymised under ``tombstone``.
public struct CustomerErasure: Sendable, Hashable {
    public var tenantID: String
    /// The customer first, then those merged into it.
    public var customerIDs: [Int64]
    /// Every app user ID that resolved to the customer.
    public var appUserIDs: [String]
    /// The app account tokens handed out for them.
    public var appAccountTokens: [String]
    /// The keyed hash (``ErasureSubject``) of each app user ID and app account token, recorded so that a repeated
    /// erasure, and store data naming the person, are recognised.
    public var subjects: [String]
    /// The canonical ID's hash: what the audit log and the kept purchases say instead of the person.
    public var tombstone: String
    /// The tenant's `privacy.erase_accounting_records`: the purchases and their revenue ledger rows go too.
    public var erasesAccountingRecords: Bool
    public var erasedAt: UnixTime

    public init(
        tenantID: String, customerIDs: [Int64], appUserIDs: [String], appAccountTokens: [String], subjects: [String],
        tombstone: String, erasesAccountingRecords: Bool, erasedAt: UnixTime
    ) {
        self.tenantID = tenantID
        self.customerIDs = customerIDs
        self.appUserIDs = appUserIDs
        self.appAccountTokens = appAccountTokens
        self.subjects = subjects
        self.tombstone = tombstone
        self.erasesAccountingRecords = erasesAccountingRecords
        self.erasedAt = erasedAt
    }
}

/// What an erasure removed and kept, counted by the database.
public struct ErasureCounts: Sendable, Hashable {
    public var events = 0
    public var purchasesKept = 0
    public var purchasesDeleted = 0
    public var webhookDeliveries = 0

    public init(events: Int = 0, purchasesKept: Int = 0, purchasesDeleted: Int = 0, webhookDeliveries: Int = 0) {
        self.events = events
        self.purchasesKept = purchasesKept
        self.purchasesDeleted = purchasesDeleted
        self.webhookDeliveries = webhookDeliveries
    }
}

/// What `DeleteCustomer` did.
public struct ErasureOutcome: Sendable, Hashable {
    /// The erased canonical app user ID's keyed hash, as the audit log records it.
    public var tombstone: String
    /// nil when the customer had been erased before (a repeated call, which only clears the files again).
    public var counts: ErasureCounts?
}

/// The keyed hash that stands for an erased app user ID: `erased_` and 22 characters of HMAC-SHA256 under the
/// tenant's erasure key (kept in the database, made at the first erasure). It recognises a repeated erasure and names
/// the person in the audit log and on the purchases kept for accounting, and reveals nothing of the ID without the key.
public enum ErasureSubject {
    public static let keyBytes = 32

    /// The hash of an app user ID or an app account token.
    public static func hash(key: [UInt8], appUserID: String) -> String {
        let code = HMACSHA256.authenticationCode(for: Array(appUserID.utf8), key: key)
        return "erased_" + Base64.encode(code.prefix(16), alphabet: .url, padded: false)
    }
}

/// Whether store data names someone erased, inside one write: the tenant's erasure key, read once (none before its
/// first erasure, and then nothing is).
struct ErasureCheck {
    let tenantID: String
    let key: [UInt8]?

    init(tenantID: String, in transaction: any StorageTransaction) throws(StorageError) {
        self.tenantID = tenantID
        key = try transaction.existingErasureKey(tenantID: tenantID)
    }

    /// The tombstone of the erased person an app account token named; nil when none did, or when a customer holds it
    /// now (the person came back under the same app user ID).
    func tombstone(ofToken token: String, in transaction: any StorageTransaction) throws(StorageError) -> String? {
        guard let key, !token.isEmpty else { return nil }
        let token = AppAccountToken.normalize(token)
        guard try transaction.customerID(tenantID: tenantID, appAccountToken: token) == nil else { return nil }
        return try transaction.erasure(tenantID: tenantID, subject: ErasureSubject.hash(key: key, appUserID: token))
    }

    /// The tombstone of the erased person an app user ID named; nil when none did, or when a customer has it now.
    func tombstone(ofAppUserID id: String, in transaction: any StorageTransaction) throws(StorageError) -> String? {
        guard let key, !id.isEmpty else { return nil }
        guard try transaction.snapshot(tenantID: tenantID, appUserID: id) == nil else { return nil }
        return try transaction.erasure(tenantID: tenantID, subject: ErasureSubject.hash(key: key, appUserID: id))
    }
}
