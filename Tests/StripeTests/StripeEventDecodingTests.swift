import Encodings
import Stripe
import Testing

/// Stripe's event and object shapes as its API renders them, in today's API version and the older ones Stripe still
/// sends to endpoints pinned to them.
@Suite struct StripeEventDecodingTests {
    private func event(_ json: String) throws -> StripeEvent {
        try JSONReader.read(StripeEvent.self, from: Array(json.utf8))
    }

    @Test func aSubscriptionEventInTodaysAPIVersionReadsThePeriodFromItsItems() throws {
        let decoded = try event("""
            {"id": "evt_1SUB", "object": "event", "api_version": "2026-10-28.endive", "created": 1796119200,
             "livemode": false, "pending_webhooks": 1, "request": {"id": "req_1", "idempotency_key": null},
             "type": "customer.subscription.updated",
             "data": {"object": {
               "id": "sub_1", "object": "subscription", "status": "active", "customer": "cus_1",
               "cancel_at_period_end": true, "cancel_at": 1798711200, "canceled_at": 1796119100, "ended_at": null,
               "trial_end": null, "created": 1793527200, "start_date": 1793527200, "livemode": false,
               "metadata": {"app_user_id": "alice"},
               "items": {"object": "list", "has_more": false, "url": "/v1/subscription_items?subscription=sub_1",
                 "data": [{"id": "si_1", "object": "subscription_item", "current_period_start": 1796119200,
                           "current_period_end": 1798711200,
                           "price": {"id": "price_pro_monthly", "object": "price", "product": "prod_pro",
                                     "recurring": {"interval": "month", "interval_count": 1}, "unit_amount": 999}}]}},
               "previous_attributes": {"cancel_at_period_end": false}}}
            """)
        #expect(decoded.id == "evt_1SUB" && decoded.type == "customer.subscription.updated" && decoded.created == 1_796_119_200)
        #expect(decoded.apiVersion == "2026-10-28.endive" && decoded.livemode == false)
        guard case .subscription(let subscription) = decoded.data.object else {
            Issue.record("not a subscription: \(decoded.data.object)")
            return
        }
        #expect(subscription.status.known == .active && subscription.customer?.id == "cus_1")
        #expect(subscription.cancelAtPeriodEnd == true && subscription.periodEnd == 1_798_711_200)
        #expect(subscription.priceIDs == ["price_pro_monthly"])
        #expect(subscription.items?.data.first?.price?.product?.id == "prod_pro")
        #expect(subscription.metadata?["app_user_id"] == "alice")
    }

    @Test func anOlderAPIVersionsPeriodOnTheSubscriptionIsRead() throws {
        let decoded = try event("""
            {"id": "evt_old", "object": "event", "api_version": "2024-06-20", "created": 1, "type": "customer.subscription.created",
             "data": {"object": {"id": "sub_2", "object": "subscription", "status": "past_due",
               "customer": {"id": "cus_2", "object": "customer", "email": "b@example.com"},
               "current_period_start": 100, "current_period_end": 200,
               "items": {"object": "list", "data": [{"id": "si_2", "price": {"id": "price_a", "product": {"id": "prod_a", "object": "product"}}}]}}}}
            """)
        guard case .subscription(let subscription) = decoded.data.object else {
            Issue.record("not a subscription")
            return
        }
        #expect(subscription.status.known == .pastDue && subscription.periodEnd == 200)
        #expect(subscription.customer?.id == "cus_2", "an expanded customer reads as its ID")
        #expect(subscription.items?.data.first?.price?.product?.id == "prod_a")
    }

    @Test func everyStatusStripeDocumentsIsKnownAndALaterOneIsKept() throws {
        for status in StripeSubscription.Status.allCases {
            let decoded = try event(#"{"id":"e","type":"t","created":1,"data":{"object":{"object":"subscription","id":"s","status":"\#(status.rawValue)"}}}"#)
            guard case .subscription(let subscription) = decoded.data.object else { Issue.record("\(status)"); continue }
            #expect(subscription.status.known == status)
        }
        let later = try event(#"{"id":"e","type":"t","created":1,"data":{"object":{"object":"subscription","id":"s","status":"frozen"}}}"#)
        guard case .subscription(let subscription) = later.data.object else { Issue.record("not a subscription"); return }
        #expect(subscription.status.known == nil && subscription.status.rawValue == "frozen")
    }

    @Test func checkoutSessionsInvoicesChargesAndDisputes() throws {
        let session = try event("""
            {"id": "evt_cs", "type": "checkout.session.completed", "created": 5, "data": {"object": {
              "id": "cs_test_1", "object": "checkout.session", "mode": "subscription", "payment_status": "paid",
              "status": "complete", "client_reference_id": "alice", "metadata": {}, "customer": "cus_1",
              "subscription": "sub_1", "payment_intent": null, "created": 4}}}
            """)
        guard case .checkoutSession(let checkout) = session.data.object else { Issue.record("not a session"); return }
        #expect(checkout.clientReferenceID == "alice" && checkout.subscription?.id == "sub_1" && checkout.paymentIntent == nil)
        #expect(checkout.mode == "subscription" && checkout.paymentStatus == "paid")

        let invoice = try event("""
            {"id": "evt_in", "type": "invoice.paid", "created": 6, "data": {"object": {
              "id": "in_1", "object": "invoice", "status": "paid", "billing_reason": "subscription_cycle",
              "customer": "cus_1", "attempt_count": 1, "next_payment_attempt": null,
              "parent": {"type": "subscription_details", "subscription_details": {"subscription": "sub_1", "metadata": {}}}}}}
            """)
        guard case .invoice(let paid) = invoice.data.object else { Issue.record("not an invoice"); return }
        #expect(paid.subscriptionID == "sub_1" && paid.billingReason == "subscription_cycle")
        let legacy = try event(#"{"id":"e","type":"invoice.payment_failed","created":1,"data":{"object":{"object":"invoice","id":"in_2","subscription":"sub_9","attempt_count":3}}}"#)
        guard case .invoice(let failed) = legacy.data.object else { Issue.record("not an invoice"); return }
        #expect(failed.subscriptionID == "sub_9" && failed.attemptCount == 3)

        let charge = try event(#"{"id":"e","type":"charge.refunded","created":1,"data":{"object":{"object":"charge","id":"ch_1","amount":999,"amount_refunded":999,"refunded":true,"payment_intent":"pi_1"}}}"#)
        guard case .charge(let refunded) = charge.data.object else { Issue.record("not a charge"); return }
        #expect(refunded.refunded == true && refunded.amountRefunded == 999 && refunded.paymentIntent?.id == "pi_1")

        let dispute = try event(#"{"id":"e","type":"charge.dispute.created","created":1,"data":{"object":{"object":"dispute","id":"dp_1","charge":"ch_1","status":"needs_response","reason":"fraudulent","amount":999}}}"#)
        guard case .dispute(let opened) = dispute.data.object else { Issue.record("not a dispute"); return }
        #expect(opened.charge?.id == "ch_1" && opened.status == "needs_response" && opened.reason == "fraudulent")
    }

    @Test func anObjectOfAnotherKindIsKeptByNameAndBrokenEventsAreRefused() throws {
        let other = try event(#"{"id":"e","type":"customer.created","created":1,"data":{"object":{"object":"customer","id":"cus_1"}}}"#)
        guard case .other(let kind) = other.data.object else { Issue.record("not other"); return }
        #expect(kind == "customer")
        for broken in [
            "{}", #"{"id":"e","type":"t","created":1}"#, #"{"id":"e","type":"t","created":"1","data":{"object":{"object":"x"}}}"#,
            #"{"id":"e","type":"t","created":1,"data":{"object":{"id":"no kind"}}}"#,
            #"{"id":"e","type":"t","created":1,"data":{"object":{"object":"subscription","id":"s"}}}"#,
        ] {
            #expect(throws: (any Error).self, "\(broken)") { try event(broken) }
        }
    }

    @Test func theObjectsKindIsFoundWhereverItStandsAndWhatFollowsAnotherKindIsRead() throws {
        let late = try event("""
            {"data": {"object": {"id": "sub_9", "status": "canceled", "items": {"data": []}, "object": "subscription"}},
             "id": "evt_9", "type": "customer.subscription.deleted", "created": 9}
            """)
        guard case .subscription(let subscription) = late.data.object else { Issue.record("not a subscription"); return }
        #expect(subscription.id == "sub_9" && subscription.status.known == .canceled && late.id == "evt_9")
        let other = try event(#"{"data":{"object":{"object":"coupon","nested":{"a":[1,2]}},"x":1},"id":"e","type":"t","created":1}"#)
        guard case .other(let kind) = other.data.object else { Issue.record("not other"); return }
        #expect(kind == "coupon" && other.created == 1)
    }

    @Test func missingMembersAndNumbersOutOfRangeAreRefusedWithTheirPath() {
        #expect(throws: JSONReadError.missing("status").inside("object").inside("data")) {
            try event(#"{"id":"e","type":"t","created":1,"data":{"object":{"object":"subscription","id":"s"}}}"#)
        }
        #expect(throws: JSONReadError.missing("id").inside("customer").inside("object").inside("data")) {
            try event(#"{"id":"e","type":"t","created":1,"data":{"object":{"object":"charge","id":"ch","customer":{"email":"a"}}}}"#)
        }
        for broken in [
            #"{"id":"e","type":"t","created":1e30,"data":{"object":{"object":"x"}}}"#,
            #"{"id":"e","type":"t","created":1,"data":{"object":{"object":"charge","id":"ch","amount":99999999999999999999}}}"#,
            #"{"id":"e","type":"t","created":1,"data":{"object":{"object":"charge","id":"ch","customer":5}}}"#,
            #"{"id":"e","type":"t","created":1,"data":{"object":{"object":"invoice","id":"in","attempt_count":1.5}}}"#,
        ] {
            #expect(throws: JSONReadError.self, "\(broken)") { try event(broken) }
        }
    }
}
