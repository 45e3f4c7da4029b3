import BoundedText

/// Customer attributes: set by the app for its user and by the tenant's backend, each change an event on its customer
/// (`CUSTOMER_INFO_CHANGED`: attributes never affect status) and a `customer.attributes_changed` webhook.
public final class Attributes: Sendable {
    let core: EngineCore

    init(core: EngineCore) {
        self.core = core
    }

    /// Applies `change` to the customer `appUserID` names, creating the customer on first sight. An app (`.app`)
    /// writes the keys the tenant lets apps write, for the customer whose canonical ID it names: an alias (an
    /// anonymous ID merged into an identified customer) is refused, so an anonymous session never writes an
    /// identified user's attributes. A call that changes no value records nothing.
    public func set(tenant: Tenant, appUserID: String, change: AttributeChange, by writer: AttributeWriter)
        async throws(DomainError) -> AttributeOutcome
    {
        let appUserID = try AppUserID.validate(appUserID)
        let settings = tenant.attributes
        let change = try AttributeRules.checked(
            change, allowed: { settings.allows($0, by: writer) }, writerName: writer == .app ? "an app" : "the backend")
        let tenantID = tenant.id
        return try await core.write(orderedBy: WriteOrder.customer(tenantID, appUserID: appUserID)) {
            transaction, now throws -> (AttributeOutcome, [CommittedChange]) in
            if writer == .app, let existing = try transaction.snapshot(tenantID: tenantID, appUserID: appUserID),
                existing.customer.appUserID != appUserID
            {
                throw DomainError.aliasOfAnotherUser(appUserID, anApp: "sets the attributes of")
            }
            var committed: [CommittedChange] = []
            let customer = try self.core.customer(
                transaction, tenantID: tenantID, appUserID: appUserID, creator: "SetAttributes", at: now,
                committed: &committed)
            let customerID = customer.customer.id
            var attributes = try transaction.attributes(tenantID: tenantID, customerID: customerID)
            let added = change.set.filter { set in !attributes.contains { $0.key == set.key } }.count
            var changed: [String] = []
            for (key, value) in change.set where !attributes.contains(where: { $0.key == key && $0.value == value }) {
                let attribute = CustomerAttribute(key: key, value: value, updatedAt: now)
                try transaction.setAttribute(tenantID: tenantID, customerID: customerID, attribute)
                attributes.removeAll { $0.key == key }
                attributes.append(attribute)
                changed.append(key)
            }
            for key in change.unset where attributes.contains(where: { $0.key == key }) {
                try transaction.removeAttribute(tenantID: tenantID, customerID: customerID, key: key)
                attributes.removeAll { $0.key == key }
                changed.append(key)
            }
            attributes.sort { $0.key < $1.key }
            changed.sort()
            let outcome = AttributeOutcome(
                appUserID: customer.customer.appUserID, attributes: attributes, changedKeys: changed)
            guard !changed.isEmpty else { return (outcome, committed) }
            // A merge may have left more: then only calls that add no key pass.
            if attributes.count > AttributeRules.maxKeysPerCustomer, added > 0 {
                throw DomainError.invalidRequest(
                    "A customer has at most \(AttributeRules.maxKeysPerCustomer) attribute keys; this call would leave "
                        + "\(attributes.count). Unset keys first.")
            }
            let change = try self.core.recordChange(
                transaction, of: customer, cause: .attributes,
                reason: "Attributes changed: \(changed.joined(separator: ", ")).", reference: "",
                subject: EventSubject(attributes: AttributeSubject(changedKeys: changed, attributes: attributes)), at: now)
            committed.append(change)
            return (outcome, committed)
        }
    }
}

/// The attributes an event changed, for its webhooks.
struct AttributeSubject: Sendable {
    var changedKeys: [String]
    /// Every attribute after the change, by key.
    var attributes: [CustomerAttribute]
}
