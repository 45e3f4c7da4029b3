import EntitlementDomain

/// Finding, listing and counting customers, as EntitlementStorage's subscriber queries answer.
extension InMemoryTables {
    func customerMatches(tenantID: String, id: String, limit: Int) -> [CustomerMatch] {
        var matches: [CustomerMatch] = []
        if let customerID = resolve(tenantID: tenantID, appUserID: id), let canonical = customers[customerID] {
            let appUserID = canonical.record.appUserID
            matches.append(CustomerMatch(appUserID: appUserID, matchedBy: appUserID == id ? .appUserID : .alias))
        }
        if id.contains("@") {
            for customerID in customerIDs(tenantID: tenantID, emailFoldedTo: CustomerAttribute.fold(id)) {
                let appUserID = customers[customerID]?.record.appUserID ?? ""
                if matches.contains(where: { $0.appUserID == appUserID }) { continue }
                matches.append(CustomerMatch(appUserID: appUserID, matchedBy: .email))
            }
        }
        func owner(_ purchase: StorePurchase?) -> String {
            purchase?.customerID.flatMap { customers[$0]?.record.appUserID } ?? ""
        }
        let tenantPurchases = purchases.values.filter { $0.row.tenantID == tenantID }.sorted { $0.sequence < $1.sequence }
        var found: [(kind: Int, match: CustomerMatch)] = []
        for purchase in tenantPurchases.map(\.row) {
            let kind: CustomerMatch.MatchedBy? =
                purchase.originalTransactionID == id ? .originalTransactionID : purchase.transactionID == id ? .transactionID : nil
            guard let kind else { continue }
            found.append(
                (
                    kind == .originalTransactionID ? 1 : 2,
                    CustomerMatch(
                        appUserID: owner(purchase), matchedBy: kind, store: purchase.store,
                        originalTransactionID: purchase.originalTransactionID)
                ))
        }
        for reference in references.keys where reference.tenantID == tenantID && reference.referenceID == id {
            let purchase = self.purchase(
                tenantID: tenantID, store: reference.store, originalTransactionID: reference.originalTransactionID)
            // A purchase the ID already names by its own IDs is listed once, by those.
            if let purchase, purchase.originalTransactionID == id || purchase.transactionID == id { continue }
            found.append(
                (
                    3,
                    CustomerMatch(
                        appUserID: owner(purchase), matchedBy: .storeReference, store: reference.store,
                        originalTransactionID: reference.originalTransactionID)
                ))
        }
        let ordered = found.enumerated().sorted {
            ($0.element.kind, $0.element.match.originalTransactionID, $0.offset)
                < ($1.element.kind, $1.element.match.originalTransactionID, $1.offset)
        }
        matches += ordered.prefix(max(limit, 0)).map(\.element.match)
        return Array(matches.prefix(max(limit, 0)))
    }

    func customers(tenantID: String, matching query: CustomerListQuery) -> [ListedCustomerRecord] {
        guard query.limit > 0 else { return [] }
        let filter = query.filter
        let after = query.afterCustomerID ?? Int64.min
        func matchesEntitlement(_ entitlement: ActiveEntitlementValue) -> Bool {
            (filter.entitlementID.map { $0 == entitlement.id } ?? true)
                && (filter.source.map { $0 == entitlement.source } ?? true)
                && (filter.productID.map { $0 == entitlement.productID } ?? true)
                && (filter.state != .gracePeriod || entitlement.inGracePeriod)
                && (filter.state != .billingRetry || entitlement.inBillingRetry)
        }
        let listed = customers.values.filter { customer in
            let record = customer.record
            guard record.tenantID == tenantID, record.id > after,
                resolve(tenantID: tenantID, appUserID: record.appUserID) == record.id,
                filter.changedSince.map({ customer.changedAt >= $0 }) ?? true
            else { return false }
            let active = activeEntitlements(tenantID: tenantID, customerID: record.id, at: query.now)
            if filter.state == .inactive && !active.isEmpty { return false }
            return !filter.needsEntitlement || active.contains(where: matchesEntitlement)
        }
        return listed.sorted { $0.record.id < $1.record.id }.prefix(query.limit).map { customer in
            ListedCustomerRecord(
                customerID: customer.record.id, appUserID: customer.record.appUserID, version: customer.record.version,
                createdAt: customer.record.createdAt, changedAt: customer.changedAt,
                entitlements: activeEntitlements(tenantID: tenantID, customerID: customer.record.id, at: query.now))
        }
    }

    func subscriberCounts(tenantID: String, at now: UnixTime) -> SubscriberCounts {
        let active = activeEntitlements.filter { $0.key.tenantID == tenantID }.flatMap { entry in
            entry.value.filter { isActive($0, at: now) }.map { (customerID: entry.key.customerID, entitlement: $0) }
        }
        func distinctCustomers<Key: Hashable>(by key: (ActiveEntitlementValue) -> Key) -> [Key: Int64] {
            Dictionary(grouping: active) { key($0.entitlement) }.mapValues { Int64(Set($0.map(\.customerID)).count) }
        }
        var perProduct = distinctCustomers { $0.productID }
        perProduct[""] = nil
        return SubscriberCounts(
            activeCustomers: Int64(Set(active.map(\.customerID)).count),
            perEntitlement: Dictionary(grouping: active) { $0.entitlement.id }.mapValues { Int64($0.count) },
            perProduct: perProduct, perSource: distinctCustomers { $0.source })
    }

    /// The customer's entitlements active at `now`, by entitlement ID.
    private func activeEntitlements(tenantID: String, customerID: Int64, at now: UnixTime) -> [ActiveEntitlementValue] {
        (activeEntitlements[CustomerKey(tenantID: tenantID, customerID: customerID)] ?? [])
            .filter { isActive($0, at: now) }.sorted { $0.id < $1.id }
    }

    private func isActive(_ entitlement: ActiveEntitlementValue, at now: UnixTime) -> Bool {
        entitlement.expiresAt.map { $0 > now } ?? true
    }
}
