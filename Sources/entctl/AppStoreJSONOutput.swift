import Encodings
import EntitlementsProto

// `--json` for the `appstore` commands: proto3 JSON field names.

extension LookUpOrderResponse: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("found", found)
        object.add("transactions", transactions)
        return object.value
    }
}

extension ExtendSubscriptionResponse: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("expiresAt", expiresAt)
        object.add("webOrderLineItemId", webOrderLineItemID)
        object.add("requestIdentifier", requestIdentifier)
        object.add("customer", customer)
        return object.value
    }
}

extension SendConsumptionInfoResponse: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("deliveryStatus", deliveryStatus)
        object.add("ownerAppUserId", ownerAppUserID)
        return object.value
    }
}

extension GetTestNotificationStatusResponse: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("sendAttempts", sendAttempts)
        object.add("received", received)
        return object.value
    }
}

extension TestNotificationAttempt: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("attemptedAt", attemptedAt)
        object.add("result", result)
        return object.value
    }
}

extension CheckAppStoreSetupResponse: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("tenantId", tenantID)
        object.add("ok", ok)
        object.add("checks", checks)
        return object.value
    }
}

extension AppStoreSetupCheck: JSONEncodable {
    var json: JSONValue {
        var object = JSONObject()
        object.add("environment", environment)
        object.add("name", name)
        object.add("ok", ok)
        object.add("detail", detail)
        return object.value
    }
}
