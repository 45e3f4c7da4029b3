import BoundedText
import Crypto
import Encodings

/// A redemption code just issued: the code itself (shown once; only its hash is kept) and the purchase it attaches.
public struct IssuedRedemptionCode: Sendable, Hashable {
    public var code: String
    public var expiresAt: UnixTime
    public var purchase: StorePurchase
}

/// What redeeming a code did: the purchase attached to the caller's customer.
public struct Redemption: Sendable, Hashable {
    public var outcome: StorePurchaseOutcome
    public var purchase: StorePurchase
}

/// Single-use codes that attach a purchase nobody owns (an anonymous web checkout) to whoever presents one: long
/// (160 random bits), expiring, kept only as SHA-256. Issuing a new code for a purchase replaces its unused one.
public enum RedemptionCodeFormat {
    public static let prefix = "rc_"
    static let randomBytes = 20
    /// `rc_` and 32 base32 characters.
    public static let length = prefix.utf8.count + 32
    private static let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567".utf8)

    static func make() -> String {
        var bits = 0
        var value = 0
        var text = prefix.utf8.map { $0 }
        for byte in SecureRandom.bytes(randomBytes) {
            value = (value << 8) | Int(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                text.append(alphabet[(value >> bits) & 31])
            }
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The code as stored: its hash, case ignored (a code typed in capitals is the same code).
    public static func hash(_ code: String) -> String {
        Hex.encode(SHA256.hash(code.lowercased()))
    }

    /// Whether `code` has the shape of a code; anything else is unknown without a lookup.
    public static func isWellFormed(_ code: String) -> Bool {
        let lowered = code.lowercased()
        return lowered.utf8.count == length && lowered.hasPrefix(prefix)
            && lowered.utf8.dropFirst(prefix.utf8.count).allSatisfy { alphabet.contains($0) }
    }
}

extension StorePurchases {
    /// The references with this ID (a Stripe checkout session, customer, invoice or payment intent).
    public func purchaseReferences(tenantID: String, store: Store, referenceID: String) throws(DomainError)
        -> [PurchaseReference]
    {
        try DomainError.reading { () throws(StorageError) in
            try repository.purchaseReferences(tenantID: tenantID, store: store, referenceID: referenceID)
        }
    }

    /// Issues a code for the newest purchase of `store` that `referenceID` names (the purchase's own ID, or a
    /// reference to it) and nobody owns, valid for `validity` milliseconds; the purchase's earlier unused code stops
    /// working. `notFound` when no purchase is named; `wrongState` when every one named has an owner.
    public func issueRedemptionCode(tenantID: String, store: Store, referenceID: String, validityMilliseconds: Int64)
        async throws(DomainError) -> IssuedRedemptionCode
    {
        let code = RedemptionCodeFormat.make()
        return try await core.write(orderedBy: nil) {
            transaction, now throws -> (IssuedRedemptionCode, [CommittedChange]) in
            var ids = try transaction.purchaseReferences(tenantID: tenantID, store: store, referenceID: referenceID)
                .map(\.originalTransactionID)
            if !ids.contains(referenceID) { ids.append(referenceID) }
            var named: [StorePurchase] = []
            for id in ids {
                if let found = try transaction.purchase(tenantID: tenantID, store: store, originalTransactionID: id) {
                    named.append(found)
                }
            }
            guard !named.isEmpty else {
                throw DomainError.notFound("No purchase is known by \(referenceID.quotedForMessage) (yet: its webhook may still be on the way).")
            }
            guard let purchase = named.filter({ $0.customerID == nil }).max(by: { $0.purchasedAt < $1.purchasedAt }) else {
                throw DomainError.wrongState(
                    "The purchase named by \(referenceID.quotedForMessage) already belongs to a user; only a purchase nobody owns gets a redemption code.")
            }
            return (
                try Self.issue(code, for: purchase, validityMilliseconds: validityMilliseconds, in: transaction, at: now),
                []
            )
        }
    }

    /// Keeps `code` (its hash) for `purchase`, replacing the purchase's unused one.
    static func issue(
        _ code: String, for purchase: StorePurchase, validityMilliseconds: Int64, in transaction: any StorageTransaction,
        at now: UnixTime
    ) throws(StorageError) -> IssuedRedemptionCode {
        try transaction.replaceOpenRedemptionCodes(
            tenantID: purchase.tenantID, store: purchase.store, originalTransactionID: purchase.originalTransactionID,
            at: now)
        let expiresAt = UnixTime(milliseconds: now.milliseconds + validityMilliseconds)
        try transaction.insertRedemptionCode(
            RedemptionCodeRecord(
                tenantID: purchase.tenantID, codeHash: RedemptionCodeFormat.hash(code), store: purchase.store,
                originalTransactionID: purchase.originalTransactionID, createdAt: now, expiresAt: expiresAt))
        return IssuedRedemptionCode(code: code, expiresAt: expiresAt, purchase: purchase)
    }

    /// Attaches the purchase `code` stands for to `appUserID` (created when new) under `policy`, and uses the code
    /// up, in one transaction. `notFound` for a code never issued (or forgotten by the tenant's retention);
    /// `wrongState` for one used, replaced or expired, saying which.
    public func redeem(tenantID: String, appUserID: String, code: String, policy: @escaping @Sendable (Store) -> TransferPolicy)
        async throws(DomainError) -> Redemption
    {
        let appUserID = try AppUserID.validate(appUserID)
        let hash = RedemptionCodeFormat.hash(code)
        return try await core.write(orderedBy: WriteOrder.customer(tenantID, appUserID: appUserID)) {
            transaction, now throws -> (Redemption, [CommittedChange]) in
            guard RedemptionCodeFormat.isWellFormed(code),
                var record = try transaction.redemptionCode(tenantID: tenantID, codeHash: hash)
            else {
                throw DomainError.notFound("Unknown redemption code.")
            }
            if let used = record.usedAt {
                throw DomainError.wrongState("This redemption code was already used, at \(used.rfc3339).")
            }
            if let replaced = record.replacedAt {
                throw DomainError.wrongState("This redemption code was replaced by a newer one at \(replaced.rfc3339).")
            }
            guard now < record.expiresAt else {
                throw DomainError.wrongState("This redemption code expired at \(record.expiresAt.rfc3339).")
            }
            guard
                let purchase = try transaction.purchase(
                    tenantID: tenantID, store: record.store, originalTransactionID: record.originalTransactionID)
            else {
                throw DomainError.internalError("the purchase of a redemption code is gone")
            }
            record.usedAt = now
            record.usedBy = appUserID
            try transaction.updateRedemptionCode(record)
            let (outcome, committed) = try self.attach(
                [purchase], to: appUserID, tenantID: tenantID, cause: .redemption, policies: policy, in: transaction,
                at: now)
            return (Redemption(outcome: outcome, purchase: purchase), committed)
        }
    }
}
