extension Customers {
    /// Versions another instance committed to the shared database (its change notifications): each customer's
    /// cache entry is read again and its open streams here get the change, as if it had been written here.
    ///
    /// Runs on the write queue, so it is ordered with this instance's own commits; a version this instance already
    /// holds (its own write, a duplicate, a catch-up overlap) changes nothing, and the cache never goes back to an
    /// older version than a stream was given.
    /// - Returns: the versions that could not be read (the database failed), with why; the next change of the
    ///   customer, or a stream's resume by version, reads them again.
    @discardableResult
    public func applyCommittedElsewhere(_ versions: [CommittedVersion]) async -> [(CommittedVersion, DomainError)] {
        var newest: [CustomerKey: CommittedVersion] = [:]
        for version in versions {
            let key = CustomerKey(tenantID: version.tenantID, customerID: version.customerID)
            if version.version > newest[key]?.version ?? 0 { newest[key] = version }
        }
        var failures: [(CommittedVersion, DomainError)] = []
        for committed in newest.values {
            do throws(DomainError) {
                try await core.writes.run { () throws(DomainError) in try self.refresh(after: committed) }
            } catch {
                failures.append((committed, error))
            }
        }
        return failures
    }

    private struct CustomerKey: Hashable {
        var tenantID: String
        var customerID: Int64
    }

    private func refresh(after committed: CommittedVersion) throws(DomainError) {
        let tenantID = committed.tenantID
        let now = core.now()
        guard
            let snapshot = try DomainError.reading({ () throws(StorageError) in
                try repository.snapshot(tenantID: tenantID, customerID: committed.customerID)
            })
        else { return }
        let survivor = try DomainError.reading { () throws(StorageError) in
            try repository.snapshot(tenantID: tenantID, appUserID: snapshot.customer.appUserID)
        }
        // Only an erasure leaves a customer whose canonical ID resolves to no one.
        guard let survivor else {
            core.forgetErased(tenantID: tenantID, customerIDs: [committed.customerID], appUserIDs: nil)
            return
        }
        // A merge left this customer an empty husk: its ID, and its streams, belong to the survivor now.
        if survivor.customer.id != snapshot.customer.id {
            let entry = CachedCustomer(snapshot: survivor, now: now)
            core.cache.store(entry, tenantID: tenantID)
            core.hub.move(
                tenantID: tenantID, from: snapshot.customer.id, to: survivor.customer.id,
                snapshot: StatusUpdate(
                    kind: .snapshot, state: entry.state(at: now), reason: "Merged into \(survivor.customer.appUserID)."))
            return
        }
        if let cached = core.cache.entry(tenantID: tenantID, appUserID: snapshot.customer.appUserID),
            cached.customerID == snapshot.customer.id, cached.version >= snapshot.customer.version
        {
            return
        }
        let entry = CachedCustomer(snapshot: snapshot, now: now)
        core.cache.store(entry, tenantID: tenantID)
        if let event = try DomainError.reading({ () throws(StorageError) in
            try repository.events(tenantID: tenantID, customerID: snapshot.customer.id, beforeVersion: nil, limit: 1)
        }).first, event.version == snapshot.customer.version {
            core.hub.publish(
                tenantID: tenantID, customerID: snapshot.customer.id,
                StatusUpdate(
                    kind: .changed(event.change), state: entry.state(at: now), reason: event.reason, cause: event.cause))
        }
        if let next = snapshot.customer.nextChangeAt { core.timeChanges.notify(next) }
    }
}
