import Encodings
import EntitlementsProto
import ProtobufWire

/// The proto3 JSON form of the contract's messages: lowerCamelCase field names, enums by name, 64-bit integers as
/// strings, timestamps in RFC 3339 UTC. Scalar and repeated fields are always written, default or not; message
/// fields only when set (an absent `expiresAt` means "never").
protocol JSONEncodable {
    var json: JSONValue { get }
}

/// Builds an object member by member, leaving out unset message fields.
struct JSONObject {
    var members: [(String, JSONValue)] = []

    mutating func add(_ key: String, _ value: String) { members.append((key, .string(value))) }
    mutating func add(_ key: String, _ value: Bool) { members.append((key, .bool(value))) }
    mutating func add(_ key: String, _ value: UInt64) { members.append((key, .string(String(value)))) }
    mutating func add(_ key: String, _ value: Int64) { members.append((key, .string(String(value)))) }
    /// 32-bit integers are JSON numbers in proto3 JSON (only 64-bit ones are strings).
    mutating func add(_ key: String, _ value: Int32) { members.append((key, .number(String(value)))) }
    mutating func add(_ key: String, _ value: UInt32) { members.append((key, .number(String(value)))) }
    mutating func add(_ key: String, _ value: [String]) { members.append((key, .array(value.map(JSONValue.string)))) }
    mutating func add(_ key: String, _ value: some NamedProtoEnum) {
        members.append((key, value.knownName.map(JSONValue.string) ?? .number(String(value.rawValue))))
    }
    /// proto3 JSON's Duration: seconds with 0, 3 or 9 fractional digits and an `s` (`"0.038s"`); left out when unset.
    mutating func add(_ key: String, _ value: ProtoDuration?) {
        guard let value else { return }
        let nanos = Int64(value.nanos.magnitude)
        let sign = value.seconds < 0 || value.nanos < 0 ? "-" : ""
        var text = "\(sign)\(value.seconds.magnitude)"
        if nanos != 0 {
            let digits = nanos % 1_000_000 == 0 ? 3 : 9
            let fraction = String(digits == 3 ? nanos / 1_000_000 : nanos)
            text += "." + String(repeating: "0", count: digits - fraction.count) + fraction
        }
        members.append((key, .string(text + "s")))
    }

    mutating func add(_ key: String, _ value: ProtoTimestamp?) {
        if let value { members.append((key, .string(TimeText.rfc3339(value)))) }
    }
    mutating func add(_ key: String, _ value: (some JSONEncodable)?) {
        if let value { members.append((key, value.json)) }
    }
    mutating func add(_ key: String, _ values: [some JSONEncodable]) {
        members.append((key, .array(values.map(\.json))))
    }

    var value: JSONValue { .object(members) }
}

extension ActiveEntitlement: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("id", id)
        object.add("source", source)
        object.add("productId", productID)
        object.add("expiresAt", expiresAt)
        object.add("willRenew", willRenew)
        object.add("inGracePeriod", inGracePeriod)
        object.add("inBillingRetry", inBillingRetry)
        return object.value
    }
}

extension SubscriptionStatus: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("state", state)
        object.add("entitlements", entitlements)
        return object.value
    }
}

extension CustomerStatus: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("appUserId", appUserID)
        object.add("status", status)
        object.add("version", version)
        object.add("serverTime", serverTime)
        return object.value
    }
}

extension IdentifyResponse: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("customer", customer)
        object.add("created", created)
        object.add("merged", merged)
        object.add("appAccountToken", appAccountToken)
        return object.value
    }
}

extension SyncStatusResponse: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("customer", customer)
        return object.value
    }
}

extension PurchaseResponse: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("customer", customer)
        object.add("transferredFromAppUserId", transferredFromAppUserID)
        object.add("result", result)
        return object.value
    }
}

extension RestoreResponse: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("customer", customer)
        object.add("transferredFromAppUserIds", transferredFromAppUserIDs)
        object.add("results", results)
        object.add("appStoreHistories", appStoreHistories)
        return object.value
    }
}

extension ReconcileAppStoreResponse: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("environments", environments)
        return object.value
    }
}

extension AppStoreReconciliation: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("environment", environment)
        object.add("startTime", startTime)
        object.add("endTime", endTime)
        object.add("pages", pages)
        object.add("found", found)
        object.add("applied", applied)
        object.add("unchanged", unchanged)
        object.add("unowned", unowned)
        object.add("alreadyProcessed", alreadyProcessed)
        object.add("rejected", rejected)
        object.add("rejections", rejections)
        return object.value
    }
}

extension AppStoreHistoryResult: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("transactionId", transactionID)
        object.add("environment", environment)
        object.add("transactionsFound", transactionsFound)
        object.add("purchases", purchases)
        return object.value
    }
}

extension PurchaseResult: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("store", store)
        object.add("productId", productID)
        object.add("originalTransactionId", originalTransactionID)
        object.add("transactionId", transactionID)
        object.add("environment", environment)
        object.add("purchasedAt", purchasedAt)
        object.add("expiresAt", expiresAt)
        object.add("revokedAt", revokedAt)
        object.add("outcome", outcome)
        object.add("active", active)
        object.add("entitlementIds", entitlementIDs)
        object.add("transferredFromAppUserId", transferredFromAppUserID)
        object.add("claimed", claimed)
        return object.value
    }
}

extension StatusEvent: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("kind", kind)
        object.add("customer", customer)
        object.add("reason", reason)
        return object.value
    }
}

extension Grant: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("grantId", grantID)
        object.add("appUserId", appUserID)
        object.add("entitlementId", entitlementID)
        object.add("startsAt", startsAt)
        object.add("expiresAt", expiresAt)
        object.add("revokedAt", revokedAt)
        object.add("reason", reason)
        object.add("revocationReason", revocationReason)
        return object.value
    }
}

extension Transaction: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("store", store)
        object.add("productId", productID)
        object.add("originalTransactionId", originalTransactionID)
        object.add("transactionId", transactionID)
        object.add("environment", environment)
        object.add("purchasedAt", purchasedAt)
        object.add("originalPurchaseAt", originalPurchaseAt)
        object.add("expiresAt", expiresAt)
        object.add("revokedAt", revokedAt)
        object.add("revocationReason", revocationReason)
        object.add("ownerAppUserId", ownerAppUserID)
        object.add("ownership", ownership)
        object.add("willRenew", willRenew)
        object.add("inGracePeriod", inGracePeriod)
        object.add("inBillingRetry", inBillingRetry)
        object.add("renewalProductId", renewalProductID)
        object.add("supersededBy", supersededBy)
        object.add("replaces", replaces)
        object.add("acknowledgement", acknowledgement)
        object.add("acknowledgementAttempts", acknowledgementAttempts)
        object.add("acknowledgementError", acknowledgementError)
        object.add("suspended", suspended)
        return object.value
    }
}

extension RefreshStorePurchaseResponse: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("transaction", transaction)
        object.add("changed", changed)
        object.add("customer", customer)
        return object.value
    }
}

extension SendTestWebhookResponse: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("webhookId", webhookID)
        object.add("delivered", delivered)
        object.add("statusCode", statusCode)
        object.add("error", error)
        object.add("duration", duration)
        return object.value
    }
}

extension WebhookDelivery: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("deliveryId", deliveryID)
        object.add("endpointId", endpointID)
        object.add("webhookId", webhookID)
        object.add("type", type)
        object.add("state", state)
        object.add("appUserId", appUserID)
        object.add("version", version)
        object.add("createdAt", createdAt)
        object.add("attempts", attempts)
        object.add("lastAttemptAt", lastAttemptAt)
        object.add("lastStatusCode", lastStatusCode)
        object.add("lastError", lastError)
        object.add("nextAttemptAt", nextAttemptAt)
        object.add("deliveredAt", deliveredAt)
        object.add("body", body)
        return object.value
    }
}

extension ListWebhookDeliveriesResponse: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("deliveries", deliveries)
        object.add("nextPageToken", nextPageToken)
        return object.value
    }
}

extension RedeliverWebhooksResponse: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("requeued", requeued)
        return object.value
    }
}

extension RedemptionCode: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("code", code)
        object.add("expiresAt", expiresAt)
        object.add("transaction", transaction)
        return object.value
    }
}

extension Customer: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("customer", customer)
        object.add("aliases", aliases)
        object.add("grants", grants)
        object.add("transactions", transactions)
        object.add("attributes", attributes)
        object.add("offerSignatures", offerSignatures)
        return object.value
    }
}

extension CustomerEvent: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("version", version)
        object.add("cause", cause)
        object.add("change", change)
        object.add("reason", reason)
        object.add("occurredAt", occurredAt)
        object.add("status", status)
        object.add("relatedAppUserId", relatedAppUserID)
        object.add("referenceId", referenceID)
        object.add("keyName", keyName)
        return object.value
    }
}

extension ListCustomerEventsResponse: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("events", events)
        object.add("nextPageToken", nextPageToken)
        return object.value
    }
}

extension ListedCustomer: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("customer", customer)
        object.add("createdAt", createdAt)
        object.add("changedAt", changedAt)
        return object.value
    }
}

extension ListCustomersResponse: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("customers", customers)
        object.add("nextPageToken", nextPageToken)
        return object.value
    }
}

extension CustomerCount: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("id", id)
        object.add("customers", customers)
        return object.value
    }
}

extension StoreCount: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("store", store)
        object.add("customers", customers)
        return object.value
    }
}

extension FindCustomersResponse: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("matches", matches)
        return object.value
    }
}

extension CustomerMatch: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("appUserId", appUserID)
        object.add("matchedBy", matchedBy)
        object.add("store", store)
        object.add("originalTransactionId", originalTransactionID)
        return object.value
    }
}

extension CountCustomersResponse: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("activeCustomers", activeCustomers)
        object.add("entitlements", entitlements)
        object.add("products", products)
        object.add("stores", stores)
        object.add("countedAt", countedAt)
        return object.value
    }
}

extension GetMetricsResponse: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("metric", metric)
        object.add("series", series)
        if !reportingCurrency.isEmpty { object.add("reportingCurrency", reportingCurrency) }
        return object.value
    }
}

extension MetricSeries: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("group", group)
        object.add("currency", currency)
        object.add("points", points)
        return object.value
    }
}

extension MetricGroupValue: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("dimension", dimension)
        object.add("value", value)
        return object.value
    }
}

extension MetricPoint: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("startDate", startDate)
        object.add("value", value)
        object.add("denominator", denominator)
        if let convertedValue { object.add("convertedValue", convertedValue) }
        if !rates.isEmpty { object.add("rates", rates) }
        if !missingRateDates.isEmpty { object.add("missingRateDates", missingRateDates) }
        return object.value
    }
}

extension MetricExchangeRate: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("date", date)
        object.add("rate", rate)
        return object.value
    }
}

extension Attribute: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("key", key)
        object.add("value", value)
        object.add("updatedAt", updatedAt)
        return object.value
    }
}

extension SetAttributesResponse: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("attributes", attributes)
        object.add("changedKeys", changedKeys)
        object.add("appUserId", appUserID)
        return object.value
    }
}

extension AuditEvent: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("id", id)
        object.add("occurredAt", occurredAt)
        object.add("action", action)
        object.add("keyName", keyName)
        object.add("requestId", requestID)
        object.add("subject", subject)
        return object.value
    }
}

extension ListAuditEventsResponse: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("events", events)
        object.add("nextPageToken", nextPageToken)
        return object.value
    }
}

extension DeleteCustomerResponse: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("subject", subject)
        object.add("alreadyDeleted", alreadyDeleted)
        object.add("eventsDeleted", eventsDeleted)
        object.add("purchasesKept", purchasesKept)
        object.add("purchasesDeleted", purchasesDeleted)
        object.add("webhookDeliveriesDeleted", webhookDeliveriesDeleted)
        return object.value
    }
}
