import AppStore
import EntitlementsProto
import Foundation
import HTTP1
import ProtobufWire
import Stripe

/// The data the fuzz inputs find, made through the same calls: customers (carol merged from $anon:1), a grant and an
/// App Store subscription of alice's, a Play subscription of bob's, a web purchase nobody owns yet, and pages to
/// continue. What the calls answer (grant ID, page tokens, redemption code, test notification token) joins the names
/// requests pick from.
extension FuzzServer {
    static let entitlementService = "/entitlements.v1.EntitlementService/"
    static let adminService = "/entitlements.v1.AdminService/"

    func seed() {
        var names: [String] = []
        func call<Request: ProtoMessage>(_ method: String, _ request: Request, admin: Bool = true) -> [UInt8]? {
            let path = (admin ? Self.adminService : Self.entitlementService) + method
            let outcome = callBlocking(path, request.serializedBytes(), key: admin ? keys.secretKey : keys.publicKey)
            guard outcome.status.code == .ok else {
                fatalError("seeding: \(method) answered \(outcome.status.code): \(outcome.status.message)")
            }
            return outcome.messages.first
        }
        func answer<Response: ProtoMessage>(_ bytes: [UInt8]?, as: Response.Type) -> Response {
            guard let bytes, let response = try? Response(serializedBytes: bytes) else {
                fatalError("seeding: an answer is not a \(Response.self)")
            }
            return response
        }
        for user in ["alice", "bob", "dave", "$anon:1"] {
            _ = call("Identify", IdentifyRequest(appUserID: user), admin: false)
        }
        _ = call("Identify", IdentifyRequest(appUserID: "carol", anonymousID: "$anon:1"), admin: false)
        let grant = GrantEntitlementRequest(
            appUserID: "alice", entitlementID: "pro", duration: ProtoDuration(seconds: 30 * 86_400), reason: "seed")
        names.append(answer(call("GrantEntitlement", grant), as: Grant.self).grantID)

        let now = Extremes.nowSeconds * 1000
        let subscription = payloads.sign(
            LocalPayloads.transaction(
                bundleID: StorePayloads.bundleID, productID: "com.example.monthly", originalTransactionID: "2000000000000001",
                purchaseDate: now - 86_400_000, expiresDate: now + 30 * 86_400_000))
        var purchase = PurchaseRequest(appUserID: "alice")
        purchase.purchase = .appStore(AppStorePurchase(signedTransaction: subscription))
        _ = call("Purchase", purchase, admin: false)
        purchase = PurchaseRequest(appUserID: "bob")
        purchase.purchase = .playStore(PlayStorePurchase(productID: "premium", purchaseToken: "play-token-1"))
        _ = call("Purchase", purchase, admin: false)

        seedUnownedWebPurchase()
        names.append(answer(call("GetRedemptionCode", GetRedemptionCodeRequest(stripeID: "cs_unowned1")), as: RedemptionCode.self).code)
        var customers = ListCustomersRequest()
        customers.pageSize = 1
        names.append(answer(call("ListCustomers", customers), as: ListCustomersResponse.self).nextPageToken)
        var events = ListCustomerEventsRequest()
        events.appUserID = "alice"
        events.pageSize = 1
        names.append(answer(call("ListCustomerEvents", events), as: ListCustomerEventsResponse.self).nextPageToken)
        names.append(
            answer(call("RequestTestNotification", RequestTestNotificationRequest()), as: RequestTestNotificationResponse.self)
                .testNotificationToken)
        seededNames.withLock { $0 = names.filter { !$0.isEmpty } }
    }

    /// A Stripe checkout nobody claimed (no client_reference_id), as Stripe's webhook tells of it.
    private func seedUnownedWebPurchase() {
        let session: [String: Any] = [
            "id": "cs_unowned1", "object": "checkout.session", "mode": "payment", "payment_status": "paid",
            "status": "complete", "client_reference_id": NSNull(), "customer": "cus_fuzz1", "subscription": NSNull(),
            "payment_intent": "pi_fuzz1", "amount_total": 990, "currency": "usd", "created": Extremes.nowSeconds,
            "livemode": false,
            "line_items": ["object": "list", "data": [["price": ["id": "price_monthly", "product": "prod_web"]]]],
        ]
        fakes.rememberStripeObject(id: "cs_unowned1", session)
        let body = payloads.json([
            "id": "evt_seed1", "object": "event", "type": "checkout.session.completed", "created": Extremes.nowSeconds,
            "livemode": false, "data": ["object": session],
        ])
        var headers = HTTPHeaders()
        headers.add(
            name: "stripe-signature",
            value: StripeSignature.header(body: body, secret: StorePayloads.stripeSecret, timestamp: Extremes.nowSeconds))
        let request = HTTPRequest(
            method: "POST", path: "/v1/stripe/webhooks/\(FuzzVocabulary.tenantID)", headers: headers, body: body)
        let routes = wiring.httpRouter
        runBounded("seeding the web purchase", within: .seconds(30)) {
            let response = await routes.respond(to: request)
            guard response.status == 200 else {
                fatalError("seeding: the Stripe webhook answered \(response.status): \(String(decoding: response.body, as: UTF8.self))")
            }
        }
    }
}
