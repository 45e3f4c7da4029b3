import BoundedText

/// Grants: entitlements given and taken back by an operator's secret key, each an event on its customer.
public final class Grants: Sendable {
    let core: EngineCore

    init(core: EngineCore) {
        self.core = core
    }

    /// Grants an entitlement; a retry with the same idempotency key returns the first grant.
    public func grant(tenant: Tenant, _ request: GrantRequest) async throws(DomainError) -> GrantOutcome {
        let appUserID = try AppUserID.validate(request.appUserID)
        try request.validate(for: tenant)
        let tenantID = tenant.id
        return try await core.write(orderedBy: WriteOrder.customer(tenantID, appUserID: appUserID)) {
            transaction, now throws -> (GrantOutcome, [CommittedChange]) in
            if let key = request.idempotencyKey, let earlier = try transaction.grant(tenantID: tenantID, idempotencyKey: key) {
                let owner = try transaction.snapshot(tenantID: tenantID, appUserID: appUserID)
                guard let owner, owner.customer.id == earlier.customerID, earlier.entitlementID == request.entitlementID
                else {
                    throw DomainError.wrongState(
                        "idempotency_key \(key.quotedForMessage) was already used for a different grant (\(earlier.grantID)).")
                }
                return (GrantOutcome(grant: earlier, appUserID: owner.customer.appUserID), [])
            }
            var committed: [CommittedChange] = []
            var customer = try self.core.customer(
                transaction, tenantID: tenantID, appUserID: appUserID, creator: "GrantEntitlement", at: now,
                committed: &committed)
            let grant = GrantRecord(
                grantID: GrantID.make(), tenantID: tenantID, customerID: customer.customer.id,
                entitlementID: request.entitlementID, startsAt: now, expiresAt: try request.expiry(from: now),
                revokedAt: nil, reason: request.reason, revocationReason: "", idempotencyKey: request.idempotencyKey)
            try transaction.insertGrant(grant)
            customer.grants.append(grant)  // the newest, so last, as a snapshot lists them
            let reason = request.reason.isEmpty ? "Granted '\(grant.entitlementID)'." : request.reason
            let change = try self.core.recordChange(
                transaction, of: customer, cause: .grant, reason: reason, reference: grant.grantID,
                subject: EventSubject(grant: grant), at: now)
            committed.append(change)
            return (GrantOutcome(grant: grant, appUserID: change.snapshot.customer.appUserID), committed)
        }
    }

    /// Revokes a grant now; revoking a revoked grant returns it unchanged.
    public func revoke(tenantID: String, grantID: String, reason: String) async throws(DomainError) -> GrantOutcome {
        guard !grantID.isEmpty else { throw .invalidRequest("grant_id is required.") }
        guard grantID.utf8.count <= GrantID.maxBytes else {
            throw .invalidRequest(
                "grant_id \(grantID.quotedForMessage) is not a grant ID: they are at most \(GrantID.maxBytes) bytes.")
        }
        guard reason.utf8.count <= 1024 else { throw .invalidRequest("reason must be at most 1024 bytes.") }
        return try await core.write(orderedBy: nil) { transaction, now throws -> (GrantOutcome, [CommittedChange]) in
            guard var grant = try transaction.grant(tenantID: tenantID, grantID: grantID),
                let owner = try transaction.snapshot(tenantID: tenantID, customerID: grant.customerID)
            else {
                throw DomainError.notFound("No grant has grant_id \(grantID.quotedForMessage).")
            }
            guard grant.revokedAt == nil else { return (GrantOutcome(grant: grant, appUserID: owner.customer.appUserID), []) }
            grant.revokedAt = now
            grant.revocationReason = reason
            try transaction.updateGrant(grant)
            let change = try self.core.recordChange(
                transaction, tenantID: tenantID, customerID: grant.customerID, cause: .revoke,
                reason: reason.isEmpty ? "Revoked grant of '\(grant.entitlementID)'." : reason,
                reference: grant.grantID, subject: EventSubject(grant: grant), at: now)
            return (GrantOutcome(grant: grant, appUserID: owner.customer.appUserID), [change])
        }
    }
}
