import AppStore
import CivilCalendar
import Crypto
import Foundation
import JOSE
import Stripe

/// Store data shaped as each store sends it, carrying the numbers a fuzz input picks (dates at the edges of `Int64`
/// and of the conversions to and from milliseconds): App Store data signed by the fixture's chain (so it verifies and
/// the reading behind the signature runs), Google Play answers and push requests, Stripe objects and events.
public struct StorePayloads: Sendable {
    public static let bundleID = "com.example.fuzz"
    public static let appAppleID: Int64 = 1_234_567_890
    /// App Store products by type, as the fixture's tenant configures them (and one it does not).
    public static let appStoreProducts: [(id: String, type: ProductType)] = [
        ("com.example.monthly", .autoRenewableSubscription), ("com.example.lifetime", .nonConsumable),
        ("com.example.pass", .nonRenewingSubscription), ("com.example.coins", .consumable),
        ("com.example.unknown", .autoRenewableSubscription),
    ]
    public static let playPackage = "com.example.app"
    public static let playProducts = ["premium", "lifetime", "coins", "unknown"]
    public static let pushAudience = "https://fuzz.example/v1/google/notifications/fuzz"
    public static let pushAccount = "push@entitlementd-fuzz.iam.gserviceaccount.com"
    public static let stripeSecret = "whsec_fuzzSecretForEntitlementd0123456789"
    public static let stripePrices = ["price_monthly", "price_unknown"]
    public static let stripeProducts = ["prod_web", "prod_unknown"]

    public let ca: LocalSigningCA
    public let pushKey: RSA.PrivateKey

    public init() throws {
        let now = Extremes.nowSeconds
        ca = try LocalSigningCA.create(validFrom: now - 86_400 * 365, validUntil: now + 86_400 * 365)
        pushKey = try RSA.PrivateKey()
    }

    // MARK: App Store

    /// A date field's value: milliseconds near now or at an edge, now and then not an integer at all.
    private func date(_ input: inout FuzzInput) -> any Sendable {
        switch input.choose(16) {
        case 14: input.pick([1.5e19, -1.5e19, 9.2e18, 0.5, -0.0] as [Double])
        case 15: String(input.int64())
        default: input.unixMilliseconds()
        }
    }

    private func environment(_ input: inout FuzzInput) -> AppStoreEnvironment {
        input.oneIn(8) ? input.pick(AppStoreEnvironment.allCases) : input.pick([.production, .sandbox])
    }

    /// The payload of a signed transaction; its IDs from `originalTransactionID` when given.
    public func transaction(_ input: inout FuzzInput, originalTransactionID: String? = nil) -> LocalPayloads.Object {
        let product = input.pick(Self.appStoreProducts)
        let original = originalTransactionID ?? input.string(FuzzVocabulary.appStoreTransactionIDs)
        var object = LocalPayloads.transaction(
            bundleID: input.oneIn(16) ? "com.example.other" : Self.bundleID, productID: product.id,
            originalTransactionID: original,
            transactionID: input.bool() ? String(input.uint64()) : original, environment: environment(&input),
            type: input.oneIn(8) ? input.pick(ProductType.allCases) : product.type,
            ownership: input.oneIn(4) ? .familyShared : .purchased)
        for field in ["purchaseDate", "originalPurchaseDate", "expiresDate", "signedDate"] where !input.oneIn(4) {
            object[field] = date(&input)
        }
        if input.oneIn(4) {
            object["revocationDate"] = date(&input)
            object["revocationReason"] = Int64(input.int32())
        }
        if input.oneIn(4) { object["quantity"] = Int64(input.int32()) }
        if input.oneIn(4) { object["price"] = input.int64() }
        if input.oneIn(4) { object["offerType"] = Int64(input.int32()) }
        if input.oneIn(8) { object["isUpgraded"] = true }
        if input.oneIn(8) { object["appAccountToken"] = input.string(FuzzVocabulary.appAccountTokens) }
        if input.oneIn(8) { object["appTransactionId"] = input.string([]) }
        return object
    }

    public func signedTransaction(_ input: inout FuzzInput, originalTransactionID: String? = nil) -> String {
        sign(transaction(&input, originalTransactionID: originalTransactionID))
    }

    public func signedRenewalInfo(_ input: inout FuzzInput, originalTransactionID: String) -> String {
        var object = LocalPayloads.renewalInfo(
            originalTransactionID: originalTransactionID, productID: input.pick(Self.appStoreProducts).id,
            autoRenew: input.bool(), environment: environment(&input),
            isInBillingRetryPeriod: input.oneIn(3) ? input.bool() : nil)
        for field in ["renewalDate", "gracePeriodExpiresDate", "signedDate", "recentSubscriptionStartDate"]
        where !input.oneIn(3) {
            object[field] = date(&input)
        }
        if input.oneIn(4) { object["expirationIntent"] = Int64(input.int32()) }
        if input.oneIn(4) { object["autoRenewStatus"] = Int64(input.int32()) }
        if input.oneIn(4) { object["priceIncreaseStatus"] = Int64(input.int32()) }
        return sign(object)
    }

    static let notificationTypes = [
        "SUBSCRIBED", "DID_RENEW", "DID_FAIL_TO_RENEW", "EXPIRED", "GRACE_PERIOD_EXPIRED", "REFUND", "REFUND_REVERSED",
        "REVOKE", "DID_CHANGE_RENEWAL_STATUS", "DID_CHANGE_RENEWAL_PREF", "OFFER_REDEEMED", "PRICE_INCREASE",
        "RENEWAL_EXTENDED", "RENEWAL_EXTENSION", "CONSUMPTION_REQUEST", "REFUND_DECLINED", "ONE_TIME_CHARGE", "TEST",
        "EXTERNAL_PURCHASE_TOKEN", "NOT_A_TYPE",
    ]

    /// An App Store Server Notification V2 payload with a transaction and renewal info of its own.
    public func notification(_ input: inout FuzzInput, type: String? = nil) -> LocalPayloads.Object {
        let original = input.string(FuzzVocabulary.appStoreTransactionIDs)
        var object = LocalPayloads.notification(
            type: type ?? input.pick(Self.notificationTypes),
            subtype: input.oneIn(2) ? nil : input.pick(["INITIAL_BUY", "RESUBSCRIBE", "DOWNGRADE", "UPGRADE", "AUTO_RENEW_ENABLED",
                "AUTO_RENEW_DISABLED", "VOLUNTARY", "BILLING_RETRY", "PRICE_INCREASE", "GRACE_PERIOD", "PENDING", "ACCEPTED",
                "BILLING_RECOVERY", "PRODUCT_NOT_FOR_SALE", "SUMMARY", "FAILURE", "UNREPORTED", "NOPE"]),
            bundleID: input.oneIn(16) ? "com.example.other" : Self.bundleID,
            appAppleID: input.oneIn(8) ? input.int64() : Self.appAppleID, environment: environment(&input),
            signedTransactionInfo: input.oneIn(8) ? nil : signedTransaction(&input, originalTransactionID: original),
            signedRenewalInfo: input.oneIn(3) ? nil : signedRenewalInfo(&input, originalTransactionID: original),
            status: input.oneIn(2) ? nil : input.pick(SubscriptionStatus.allCases),
            notificationUUID: input.oneIn(4) ? input.string(FuzzVocabulary.notificationUUIDs) : nil)
        if !input.oneIn(4) { object["signedDate"] = date(&input) }
        return object
    }

    /// The body Apple posts to the notification URL.
    public func notificationBody(_ signedPayload: String) -> [UInt8] {
        Array(#"{"signedPayload":"\#(signedPayload)"}"#.utf8)
    }

    public func sign(_ object: LocalPayloads.Object) -> String {
        do {
            return try ca.sign(object)
        } catch {
            fatalError("cannot sign with the fixture's chain: \(error)")
        }
    }

    // MARK: Google Play

    /// An RFC 3339 time as Google writes them, for milliseconds near now or at an edge, or text at the edge of the
    /// format.
    private func googleTime(_ input: inout FuzzInput) -> String {
        if input.oneIn(4) {
            return input.pick([
                "9999-12-31T23:59:59.999Z", "0001-01-01T00:00:00Z", "0000-01-01T00:00:00Z", "+275760-09-13T00:00:00Z",
                "2026-13-45T99:99:99Z", "2026-01-01T00:00:00.9999999999999999999999Z", "2026-01-01T00:00:00+99:99", "",
                "1970-01-01T00:00:00Z", "2026-02-29T00:00:00Z",
            ])
        }
        let milliseconds = input.unixMilliseconds()
        let seconds = min(max(milliseconds / 1000, -62_135_596_800), 253_402_300_799)
        return CivilCalendar.iso8601(seconds: seconds, fraction: (milliseconds % 1000 + 1000) % 1000, digits: 3)
    }

    /// A `SubscriptionPurchaseV2` (purchases.subscriptionsv2.get).
    public func subscription(_ input: inout FuzzInput) -> [String: Any] {
        var lineItem: [String: Any] = [
            "productId": input.pick(Self.playProducts), "expiryTime": googleTime(&input),
            "latestSuccessfulOrderId": "GPA.\(input.uint64())",
        ]
        if input.bool() {
            lineItem["autoRenewingPlan"] = ["autoRenewEnabled": input.bool(), "basePlanId": input.pick(["monthly", "yearly"])]
        } else {
            lineItem["prepaidPlan"] = [String: Any]()
        }
        var object: [String: Any] = [
            "kind": "androidpublisher#subscriptionPurchaseV2", "startTime": googleTime(&input),
            "subscriptionState": input.pick([
                "SUBSCRIPTION_STATE_ACTIVE", "SUBSCRIPTION_STATE_PENDING", "SUBSCRIPTION_STATE_PAUSED",
                "SUBSCRIPTION_STATE_IN_GRACE_PERIOD", "SUBSCRIPTION_STATE_ON_HOLD", "SUBSCRIPTION_STATE_CANCELED",
                "SUBSCRIPTION_STATE_EXPIRED", "SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED", "SUBSCRIPTION_STATE_NEW",
            ]),
            "acknowledgementState": input.pick(["ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED", "ACKNOWLEDGEMENT_STATE_PENDING"]),
            "latestOrderId": "GPA.\(input.uint64())", "lineItems": input.oneIn(8) ? [] : [lineItem],
        ]
        if input.oneIn(4) { object["linkedPurchaseToken"] = input.string(FuzzVocabulary.playTokens) }
        if input.oneIn(4) { object["testPurchase"] = [String: Any]() }
        if input.oneIn(4) { object["pausedStateContext"] = ["autoResumeTime": googleTime(&input)] }
        if input.oneIn(4) {
            object["canceledStateContext"] = [input.pick(["userInitiatedCancellation", "systemInitiatedCancellation",
                "developerInitiatedCancellation", "replacementCancellation"]): [String: Any]()]
        }
        return object
    }

    /// A `ProductPurchase` (purchases.products.get): Google writes its millisecond times and counts as JSON strings
    /// or numbers.
    public func product(_ input: inout FuzzInput) -> [String: Any] {
        var object: [String: Any] = [
            "kind": "androidpublisher#productPurchase", "purchaseTimeMillis": String(input.unixMilliseconds()),
            "purchaseState": Int64(input.oneIn(2) ? 0 : input.int32()), "consumptionState": Int64(input.int32() & 1),
            "orderId": "GPA.\(input.uint64())", "acknowledgementState": Int64(input.int32() & 1),
            "productId": input.pick(Self.playProducts), "regionCode": "US",
        ]
        if input.oneIn(4) { object["purchaseType"] = Int64(input.int32()) }
        if input.oneIn(4) { object["quantity"] = Int64(input.int32()) }
        if input.oneIn(4) { object["refundableQuantity"] = Int64(input.int32()) }
        if input.oneIn(8) { object["purchaseTimeMillis"] = input.int64() }
        return object
    }

    /// A Pub/Sub push request's body carrying a real-time developer notification.
    public func pushBody(_ input: inout FuzzInput) -> [UInt8] {
        var notification: [String: Any] = [
            "version": "1.0", "packageName": input.oneIn(16) ? "com.example.other" : Self.playPackage,
            "eventTimeMillis": input.oneIn(4) ? String(input.int64()) : String(input.unixMilliseconds()),
        ]
        let token = input.string(FuzzVocabulary.playTokens)
        switch input.choose(4) {
        case 0:
            notification["subscriptionNotification"] = [
                "version": "1.0", "notificationType": Int64(input.oneIn(2) ? Int32(input.choose(21)) : input.int32()),
                "purchaseToken": token, "subscriptionId": input.pick(Self.playProducts),
            ]
        case 1:
            notification["oneTimeProductNotification"] = [
                "version": "1.0", "notificationType": Int64(input.oneIn(2) ? Int32(input.choose(3)) : input.int32()),
                "purchaseToken": token, "sku": input.pick(Self.playProducts),
            ]
        case 2:
            notification["voidedPurchaseNotification"] = [
                "purchaseToken": token, "orderId": "GPA.\(input.uint64())", "productType": Int64(input.int32()),
                "refundType": Int64(input.int32()),
            ]
        default:
            notification["testNotification"] = ["version": "1.0"]
        }
        let data = input.oneIn(8) ? input.bytes(upTo: 64) : json(notification)
        let envelope: [String: Any] = [
            "message": [
                "data": input.oneIn(16) ? "%%%" : Data(data).base64EncodedString(),
                "messageId": String(input.uint64()), "publishTime": googleTime(&input),
            ],
            "subscription": "projects/entitlementd-fuzz/subscriptions/play-rtdn",
        ]
        return json(envelope)
    }

    /// The `Authorization` header Pub/Sub sends: a token signed with the push key, its claims at the edges.
    public func pushAuthorization(_ input: inout FuzzInput) -> String {
        let seconds = Extremes.nowSeconds
        var claims: [String: Any] = [
            "iss": input.oneIn(8) ? "https://evil.example" : "https://accounts.google.com",
            "aud": input.oneIn(8) ? "https://other.example" : Self.pushAudience,
            "email": input.oneIn(8) ? "other@example.com" : Self.pushAccount, "email_verified": !input.oneIn(8),
            "sub": "104729000000000000002",
            "iat": input.oneIn(4) ? input.int64() : seconds, "exp": input.oneIn(4) ? input.int64() : seconds + 3600,
        ]
        if input.oneIn(8) { claims["nbf"] = input.int64() }
        let kid = input.oneIn(8) ? "unknown" : "push-1"
        let header = Array(#"{"alg":"RS256","kid":"\#(kid)","typ":"JWT"}"#.utf8)
        guard let token = try? JWSSigning.sign(headerJSON: header, payload: json(claims), key: pushKey) else {
            fatalError("cannot sign a push token")
        }
        return "Bearer " + token
    }

    /// The JWKS file that holds the push key, as the tenant's `jwks_file`.
    public var pushKeySet: [UInt8] { JSONWebKeySet(keys: ["push-1": pushKey.publicKey]).jsonRepresentation }

    // MARK: Stripe

    /// A Stripe object of one of the kinds the server reads, with its times at the edges; `id` is its ID.
    public func stripeObject(_ input: inout FuzzInput) -> (id: String, kind: String, object: [String: Any]) {
        func time() -> Int64 { input.oneIn(2) ? input.int64() : Extremes.nowSeconds &+ Int64(Int8(bitPattern: input.byte())) &* 86_400 }
        let id = input.string(FuzzVocabulary.stripeIDs)
        let customer = input.pick(["cus_fuzz1", "cus_fuzz2"])
        let price: [String: Any] = [
            "id": input.pick(Self.stripePrices), "product": input.pick(Self.stripeProducts),
            "unit_amount": input.int64(), "currency": "usd",
        ]
        let item: [String: Any] = [
            "id": "si_fuzz", "price": price, "quantity": input.int64(), "current_period_start": time(),
            "current_period_end": time(),
        ]
        switch input.choose(5) {
        case 0:
            return (id, "subscription", [
                "id": id, "object": "subscription",
                "status": input.pick(["active", "trialing", "past_due", "canceled", "unpaid", "incomplete",
                    "incomplete_expired", "paused", "new"]),
                "customer": customer, "items": ["object": "list", "data": [item]],
                "cancel_at_period_end": input.bool(), "cancel_at": time(), "canceled_at": time(), "ended_at": time(),
                "trial_end": time(), "created": time(), "start_date": time(), "current_period_start": time(),
                "current_period_end": time(), "latest_invoice": "in_fuzz1", "livemode": input.bool(),
                "metadata": ["app_user_id": input.string(FuzzVocabulary.appUserIDs)],
            ])
        case 1:
            return (id, "checkout.session", [
                "id": id, "object": "checkout.session", "mode": input.pick(["payment", "subscription", "setup"]),
                "payment_status": input.pick(["paid", "unpaid", "no_payment_required"]),
                "status": input.pick(["complete", "open", "expired"]),
                "client_reference_id": input.oneIn(2) ? input.string(FuzzVocabulary.appUserIDs) : NSNull(),
                "customer": customer, "subscription": input.oneIn(2) ? NSNull() : "sub_fuzz1", "payment_intent": "pi_fuzz1",
                "invoice": "in_fuzz1", "amount_total": input.int64(), "currency": "usd", "created": time(),
                "livemode": input.bool(), "line_items": ["object": "list", "data": [["price": price]]],
            ])
        case 2:
            return (id, "invoice", [
                "id": id, "object": "invoice", "status": input.pick(["paid", "open", "void", "uncollectible"]),
                "billing_reason": input.pick(["subscription_create", "subscription_cycle", "manual"]), "customer": customer,
                "parent": ["subscription_details": ["subscription": "sub_fuzz1"]], "attempt_count": Int64(input.int32()),
                "next_payment_attempt": time(),
                "lines": ["object": "list", "data": [["period": ["start": time(), "end": time()], "price": price]]],
                "payments": ["object": "list", "data": [["payment": ["payment_intent": "pi_fuzz1"]]]],
                "created": time(), "livemode": input.bool(),
            ])
        case 3:
            return (id, "charge", [
                "id": id, "object": "charge", "payment_intent": "pi_fuzz1", "invoice": "in_fuzz1", "customer": customer,
                "amount": input.int64(), "amount_refunded": input.int64(), "refunded": input.bool(), "created": time(),
                "livemode": input.bool(),
            ])
        default:
            return (id, "dispute", [
                "id": id, "object": "dispute", "charge": "ch_fuzz1", "payment_intent": "pi_fuzz1", "amount": input.int64(),
                "status": input.pick(["needs_response", "won", "lost"]), "created": time(), "livemode": input.bool(),
            ])
        }
    }

    static let stripeEventTypes: [String: [String]] = [
        "subscription": ["customer.subscription.created", "customer.subscription.updated", "customer.subscription.deleted"],
        "checkout.session": ["checkout.session.completed", "checkout.session.async_payment_succeeded",
            "checkout.session.async_payment_failed"],
        "invoice": ["invoice.paid", "invoice.payment_succeeded", "invoice.payment_failed"],
        "charge": ["charge.refunded"], "dispute": ["charge.dispute.created"],
    ]

    /// A Stripe event about `object`.
    public func stripeEvent(_ input: inout FuzzInput, about object: (id: String, kind: String, object: [String: Any]))
        -> [UInt8]
    {
        json([
            "id": "evt_" + String(input.uint64()), "object": "event",
            "type": input.oneIn(16) ? "customer.created" : input.pick(Self.stripeEventTypes[object.kind] ?? ["ping"]),
            "created": input.oneIn(2) ? input.int64() : Extremes.nowSeconds, "livemode": input.bool(),
            "api_version": "2025-03-31.basil", "data": ["object": object.object],
        ])
    }

    /// The `Stripe-Signature` header for `body`, its timestamp now or at an edge.
    public func stripeSignature(_ input: inout FuzzInput, body: [UInt8]) -> String {
        let timestamp = input.oneIn(4) ? input.int64() : Extremes.nowSeconds
        return StripeSignature.header(body: body, secret: Self.stripeSecret, timestamp: timestamp)
    }

    public func json(_ object: Any) -> [UInt8] {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
            fatalError("not JSON: \(object)")
        }
        return Array(data)
    }
}
