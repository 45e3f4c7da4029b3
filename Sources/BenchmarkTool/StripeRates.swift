import CivilCalendar
import Foundation
import HTTP1
import PosixIO
import Stripe

/// Stripe webhooks through a running server: COUNT signed `customer.subscription.created` events, one per subscription
/// `sub_bench_<n>` naming the buyer `bench-web-<n>` (a new customer each), each needing a durable commit before its
/// 200. The signatures are made up front, so the rate is the server's (verify, parse, interpret, commit).
enum StripeBench {
    static let price = "price_bench_pro"

    /// `stripe-webhook-rate`
    static func webhookRate(address: ListenAddress, tenant: String, secret: String, count: Int, concurrency: Int)
        async throws
    {
        let now = Int64(Date().timeIntervalSince1970)
        let requests: [HTTPClientRequest] = try (0..<count).map { index in
            let item: [String: Any] = [
                "id": "si_bench_\(index)", "object": "subscription_item", "price": ["id": price, "object": "price"],
                "current_period_start": now, "current_period_end": now + 30 * Seconds.perDay,
            ]
            let subscription: [String: Any] = [
                "id": "sub_bench_\(index)", "object": "subscription", "status": "active", "customer": "cus_bench_\(index)",
                "cancel_at_period_end": false, "start_date": now, "created": now, "livemode": false,
                "items": ["object": "list", "data": [item]], "metadata": ["app_user_id": "bench-web-\(index)"],
            ]
            let event: [String: Any] = [
                "id": "evt_bench_\(index)_\(now)", "object": "event", "type": "customer.subscription.created",
                "created": now, "livemode": false, "api_version": "2026-10-28.endive",
                "data": ["object": subscription],
            ]
            let body = try BenchJSON.bytes(event)
            return HTTPClientRequest(
                method: "POST", scheme: .http, host: address.host, port: address.port,
                target: "/v1/stripe/webhooks/\(tenant)",
                headers: [
                    "Content-Type": "application/json",
                    "Stripe-Signature": StripeSignature.header(body: body, secret: secret, timestamp: now),
                ],
                body: body)
        }
        print(try await HTTPRates.run(requests, concurrency: concurrency, expecting: [200], what: "webhooks") + " (all 200)")
    }
}
