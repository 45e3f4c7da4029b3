import CivilCalendar
import Encodings
import AppStore
import Crypto
import Foundation
import Stripe

/// `dev stripe`: a Stripe event, signed like Stripe signs webhooks (HMAC-SHA256 over `t.body` with the endpoint
/// secret, stripe-python's scheme) and posted to the server's Stripe webhook, for testing web purchases without Stripe.
/// The object is built from options for the events the server acts on, or given whole with `--object`.
extension DevCommands {
    /// The demo tenant's endpoint secret (Config/tenants.demo.json): public knowledge, like its API keys.
    static let demoWebhookSecret = "whsec_demoWebhookSecretForLocalTestingOnly"
    /// The demo tenant's Stripe price for Pro, monthly.
    static let demoPrice = "price_demo_pro_monthly"

    static func stripeWebhookPath(_ tenant: String) -> String { "/v1/stripe/webhooks/\(tenant)" }

    /// `dev stripe TYPE --tenant ID [options]`
    func stripe() async throws -> Int32 {
        try arguments.check(positionals: ["TYPE"], options: Self.stripeOptions)
        let type = arguments.positionals[0]
        guard !type.isEmpty, type.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw UsageError(description: "invalid TYPE '\(type)': a Stripe event type such as customer.subscription.updated")
        }
        let tenant = try arguments.required("--tenant")
        let secret = try arguments.optional("--secret") ?? Self.demoWebhookSecret
        let now = LocalPayloads.nowMilliseconds()
        let created = (try arguments.date("--created", now: now) ?? now) / 1000
        let object = try stripeObject(type: type, now: now)
        let event = JSONValue.object([
            ("id", .string(try arguments.optional("--event-id") ?? "evt_dev_" + SecureRandom.hex(12))),
            ("object", .string("event")), ("api_version", .string("2026-10-28.endive")),
            ("created", .number(String(created))), ("livemode", .bool(arguments.flag("--livemode"))),
            ("pending_webhooks", .number("1")), ("type", .string(type)),
            ("data", .object([("object", object)])),
        ])
        let body = Array(event.text.utf8)
        let header = StripeSignature.header(body: body, secret: secret, timestamp: now / 1000)
        return try await postAndPrint(body, path: Self.stripeWebhookPath(tenant), headers: [("stripe-signature", header)])
    }

    static let stripeOptions: Set<String> = [
        "--tenant", "--secret", "--object", "--event-id", "--created", "--livemode", "--subscription", "--customer",
        "--price", "--status", "--period-end", "--cancel-at-period-end", "--app-user-id", "--session", "--mode",
        "--payment-intent", "--payment-status", "--invoice", "--charge", "--dispute", "--partial",
    ]

    /// `--object` as given (a file, or - for standard input), else the object TYPE carries, from the options.
    private func stripeObject(type: String, now: Int64) throws -> JSONValue {
        if let source = try arguments.optional("--object") {
            return .raw(try Self.readJSONObject(source))
        }
        let livemode = JSONValue.bool(arguments.flag("--livemode"))
        let customer = try arguments.optional("--customer") ?? "cus_dev_" + SecureRandom.hex(6)
        let subscription = try arguments.optional("--subscription")
        let paymentIntent = try arguments.optional("--payment-intent")
        let periodEnd = (try arguments.date("--period-end", now: now) ?? now + 30 * Milliseconds.perDay) / 1000
        let price = try arguments.optional("--price") ?? Self.demoPrice
        let user = try arguments.optional("--app-user-id")
        func id(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        switch type {
        case _ where type.hasPrefix("customer.subscription."):
            let status = try arguments.optional("--status") ?? (type == "customer.subscription.deleted" ? "canceled" : "active")
            let start = periodEnd - 30 * Seconds.perDay
            let item = JSONValue.object([
                ("id", .string("si_dev_" + SecureRandom.hex(6))), ("object", .string("subscription_item")),
                ("price", .object([("id", .string(price)), ("object", .string("price"))])),
                ("current_period_start", .number(String(start))), ("current_period_end", .number(String(periodEnd))),
            ])
            return .object([
                ("id", .string(subscription ?? "sub_dev_" + SecureRandom.hex(8))), ("object", .string("subscription")),
                ("status", .string(status)), ("customer", .string(customer)),
                ("cancel_at_period_end", .bool(arguments.flag("--cancel-at-period-end"))),
                ("start_date", .number(String(start))), ("created", .number(String(start))),
                ("items", .object([("object", .string("list")), ("data", .array([item]))])),
                ("latest_invoice", id(try arguments.optional("--invoice"))),
                ("metadata", .object(user.map { [("app_user_id", .string($0))] } ?? [])), ("livemode", livemode),
            ])
        case _ where type.hasPrefix("checkout.session."):
            let mode = try arguments.optional("--mode") ?? (subscription == nil ? "payment" : "subscription")
            return .object([
                ("id", .string(try arguments.optional("--session") ?? "cs_test_dev_" + SecureRandom.hex(12))),
                ("object", .string("checkout.session")), ("mode", .string(mode)), ("status", .string("complete")),
                ("payment_status", .string(try arguments.optional("--payment-status") ?? "paid")),
                ("client_reference_id", id(user)), ("customer", .string(customer)), ("subscription", id(subscription)),
                ("payment_intent", id(mode == "payment" ? paymentIntent ?? "pi_dev_" + SecureRandom.hex(8) : nil)),
                ("metadata", .object(mode == "payment" ? [("price_id", .string(price))] : [])),
                ("created", .number(String(now / 1000))), ("livemode", livemode),
            ])
        case _ where type.hasPrefix("invoice."):
            guard let subscription else { throw UsageError(description: "\(type) needs --subscription ID") }
            let line = JSONValue.object([("period", .object([("start", .number(String(periodEnd - 30 * Seconds.perDay))), ("end", .number(String(periodEnd)))]))])
            let payments = paymentIntent.map { [JSONValue.object([("payment", .object([("type", .string("payment_intent")), ("payment_intent", .string($0))]))])] } ?? []
            return .object([
                ("id", .string(try arguments.optional("--invoice") ?? "in_dev_" + SecureRandom.hex(8))), ("object", .string("invoice")),
                ("status", .string(type == "invoice.payment_failed" ? "open" : "paid")), ("customer", .string(customer)),
                ("parent", .object([("type", .string("subscription_details")), ("subscription_details", .object([("subscription", .string(subscription))]))])),
                ("lines", .object([("object", .string("list")), ("data", .array([line]))])),
                ("payments", .object([("object", .string("list")), ("data", .array(payments))])), ("livemode", livemode),
            ])
        case "charge.refunded":
            guard let paymentIntent else { throw UsageError(description: "\(type) needs --payment-intent ID") }
            let amount = 999
            return .object([
                ("id", .string(try arguments.optional("--charge") ?? "ch_dev_" + SecureRandom.hex(8))), ("object", .string("charge")),
                ("amount", .number(String(amount))),
                ("amount_refunded", .number(String(arguments.flag("--partial") ? amount / 2 : amount))),
                ("refunded", .bool(!arguments.flag("--partial"))), ("payment_intent", .string(paymentIntent)),
                ("customer", .string(customer)), ("livemode", livemode),
            ])
        case _ where type.hasPrefix("charge.dispute."):
            guard let paymentIntent else { throw UsageError(description: "\(type) needs --payment-intent ID") }
            return .object([
                ("id", .string(try arguments.optional("--dispute") ?? "dp_dev_" + SecureRandom.hex(8))), ("object", .string("dispute")),
                ("charge", .string(try arguments.optional("--charge") ?? "ch_dev_" + SecureRandom.hex(8))),
                ("payment_intent", .string(paymentIntent)), ("amount", .number("999")), ("reason", .string("fraudulent")),
                ("status", .string(try arguments.optional("--status") ?? "needs_response")), ("livemode", livemode),
            ])
        default:
            throw UsageError(description: "dev stripe builds no \(type) object: give it with --object FILE (- for standard input)")
        }
    }

    /// The JSON object in FILE (or standard input for -), checked to be one.
    private static func readJSONObject(_ source: String) throws -> [UInt8] {
        let bytes: [UInt8]
        if source == "-" {
            bytes = Array(FileHandle.standardInput.readDataToEndOfFile())
        } else {
            guard let data = FileManager.default.contents(atPath: source) else {
                throw Failure(description: "cannot read --object \(source)")
            }
            bytes = Array(data)
        }
        let object: Void? = try? JSONReader.read(bytes) { reader throws(JSONReadError) in
            try reader.readObject { reader, _ throws(JSONReadError) in try reader.skipValue() }
        }
        guard object != nil else {
            throw Failure(description: "--object \(source) is not a JSON object")
        }
        return bytes
    }
}
