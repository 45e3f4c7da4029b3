import CivilCalendar
import EntitlementDomain
import Encodings
import Foundation
import Stripe
import Testing

/// What a Stripe purchase says of its money: a subscription's paid invoices, a one-time Checkout's total, and what a
/// refund or dispute took back.
@Suite struct StripeSaleTests {
    static let start: Int64 = 1_700_000_000
    static let day = Seconds.perDay

    private static func decoded<Value: JSONReadable>(_ type: Value.Type, _ object: [String: Any]) throws -> Value {
        try JSONReader.read(Value.self, from: Array(#require(JSONValue(sortingKeysOf: object)).text.utf8))
    }

    /// The paid invoice `in_2`, 11.90 EUR with 1.90 tax, for the period from `start`; `fields` replace its own
    /// (NSNull removes one).
    static func invoice(_ fields: [String: Any] = [:]) throws -> StripeInvoice {
        var object: [String: Any] = [
            "id": "in_2", "object": "invoice", "status": "paid", "billing_reason": "subscription_cycle",
            "amount_paid": 1_190, "currency": "eur", "total_taxes": [["amount": 150], ["amount": 40]],
            "customer_address": ["country": "de"], "discounts": [String](),
            "parent": ["subscription_details": ["subscription": "sub_1"]],
            "lines": ["data": [["period": ["start": start + 30 * day, "end": start + 60 * day]]]],
        ]
        for (key, value) in fields { object[key] = value is NSNull ? nil : value }
        return try decoded(StripeInvoice.self, object)
    }

    /// The subscription's record once its current transaction is `in_2`.
    static func record(transactionID: String = "in_2") -> StorePurchase {
        StorePurchase(
            tenantID: "acme", store: .stripe, originalTransactionID: "sub_1", transactionID: transactionID,
            customerID: 7, productID: "pro_web", productType: "subscription", entitlementIDs: ["pro"],
            environment: .sandbox, purchasedAt: UnixTime(milliseconds: start * 1000),
            originalPurchaseAt: UnixTime(milliseconds: start * 1000),
            expiresAt: UnixTime(milliseconds: (start + 60 * day) * 1000), revokedAt: nil, revocationReason: "",
            ownership: .purchased, willRenew: true, appAccountToken: "", offerType: "",
            signedAt: UnixTime(milliseconds: start * 1000), updatedAt: UnixTime(milliseconds: start * 1000),
            price: PurchasePrice(milliunits: 9_990, currency: "USD"))
    }

    @Test func aPaidInvoiceIsWhatWasCharged() throws {
        let charged = try StripeInterpretation.charged(Self.record(), by: Self.invoice())
        #expect(charged.price == PurchasePrice(milliunits: 11_900, currency: "EUR"))
        let sale = try #require(charged.sale)
        #expect(sale.kind == .subscriptionRenewal && sale.offer == .none && sale.country == "DE")
        #expect(sale.taxMilliunits == 1_900 && sale.reportedProceedsMilliunits == nil)
        #expect(sale.periodStart == UnixTime(milliseconds: (Self.start + 30 * Self.day) * 1000))
        // The older `tax` field, and zero-decimal currencies.
        let legacy = try StripeInterpretation.charged(
            Self.record(),
            by: Self.invoice(["total_taxes": NSNull(), "tax": 100, "amount_paid": 1_200, "currency": "jpy"]))
        #expect(legacy.price == PurchasePrice(milliunits: 1_200_000, currency: "JPY") && legacy.sale?.taxMilliunits == 100_000)
    }

    @Test func whyStripeBilledSaysTheKindAndTheOffer() throws {
        func sale(_ fields: [String: Any]) throws -> PurchaseSale? {
            try StripeInterpretation.charged(Self.record(), by: Self.invoice(fields)).sale
        }
        #expect(try sale(["billing_reason": "subscription_create"])?.kind == .subscriptionPurchase)
        #expect(try sale(["billing_reason": "subscription_update"])?.kind == .subscriptionPurchase)
        #expect(try sale(["billing_reason": "manual"])?.kind == .subscriptionRenewal)
        let trial = try sale(["billing_reason": "subscription_create", "amount_paid": 0, "total_taxes": [Any]()])
        #expect(trial?.offer == .freeTrial && trial?.taxMilliunits == 0)
        #expect(try sale(["discounts": ["di_1"]])?.offer == .promotional)
        // Nothing paid but not the first invoice (a 100% coupon on a renewal): no trial.
        #expect(try sale(["amount_paid": 0])?.offer == OfferKind.none)
    }

    @Test func anInvoiceNotPaidOrNotTheCurrentOneChangesNothing() throws {
        let record = Self.record()
        #expect(try StripeInterpretation.charged(record, by: Self.invoice(["status": "open"])) == record)
        #expect(try StripeInterpretation.charged(Self.record(transactionID: "in_3"), by: Self.invoice()).sale == nil)
        #expect(try StripeInterpretation.charged(record, by: Self.invoice(["amount_paid": -5])) == record)
        #expect(try StripeInterpretation.charged(record, by: Self.invoice(["currency": NSNull()])) == record)
        #expect(throws: DomainError.self) {
            try StripeInterpretation.charged(
                record, by: Self.invoice(["lines": ["data": [["period": ["start": Int64.max, "end": 1]]]]]))
        }
    }

    @Test func aRenewalsPaidInvoiceDoesNotCarryTheLastOnesSale() throws {
        let first = try StripeInterpretation.charged(
            Self.record(), by: Self.invoice(["billing_reason": "subscription_create"]))
        let renewal = try Self.invoice(["id": "in_3", "lines": ["data": [["period": ["start": Self.start + 60 * Self.day, "end": Self.start + 90 * Self.day]]]]])
        let paid = try #require(
            try StripeInterpretation.paid(renewal, stored: first, observedAt: UnixTime(milliseconds: Self.start * 1000)))
        #expect(paid.transactionID == "in_3" && paid.sale == nil)
        let charged = try StripeInterpretation.charged(paid, by: renewal)
        #expect(
            RevenueLedger.entries(for: charged, stored: first, commission: Commissions.defaults.stripe).map(\.kind)
                == [.renewal])
    }

    @Test func aCheckoutsTotalIsOnceItIsPaid() throws {
        let settings = StripeSettings(
            webhookSecrets: ["whsec_0123456789abcdef0123"], environments: [.test], prices: ["price_life": "life_web"])
        let tenant = try Tenant(
            id: "acme", publicKeyHashes: [APIKey.hashString(APIKey.generate(.publicKey))!],
            products: ["life_web": ["premium"]], stripe: settings)
        func session(_ fields: [String: Any]) throws -> StorePurchase? {
            var object: [String: Any] = [
                "id": "cs_1", "mode": "payment", "payment_status": "paid", "payment_intent": "pi_1",
                "metadata": ["price_id": "price_life"], "amount_total": 4_999, "currency": "eur", "created": Self.start,
                "total_details": ["amount_tax": 799, "amount_discount": 0],
                "customer_details": ["address": ["country": "FR"]],
            ]
            object.merge(fields) { $1 }
            return try StripeInterpretation.purchase(
                fromCheckoutSession: Self.decoded(StripeCheckoutSession.self, object),
                observedAt: UnixTime(milliseconds: Self.start * 1000), origin: .notification, tenant: tenant,
                settings: settings)
        }
        let bought = try #require(try session([:]))
        #expect(bought.price == PurchasePrice(milliunits: 49_990, currency: "EUR"))
        #expect(bought.sale == PurchaseSale(kind: .oneTime, offer: .none, country: "FR", taxMilliunits: 7_990))
        #expect(try session(["total_details": ["amount_tax": 0, "amount_discount": 500]])?.sale?.offer == .promotional)
        #expect(try session(["payment_status": "unpaid"])?.sale == nil)
    }

    @Test func aRefundOrDisputeRecordsWhatWasTakenBack() throws {
        let charged = try StripeInterpretation.charged(Self.record(), by: Self.invoice())
        let revoked = try #require(
            StripeInterpretation.revoking(charged, at: UnixTime(milliseconds: Self.start * 1000), reason: "DISPUTED"))
        #expect(StripeInterpretation.refunding(revoked, amount: 1_190, currency: "eur").sale?.refundedMilliunits == 11_900)
        #expect(StripeInterpretation.refunding(revoked, amount: 5_000, currency: "eur").sale?.refundedMilliunits == 11_900)
        #expect(StripeInterpretation.refunding(revoked, amount: 500, currency: "usd").sale?.refundedMilliunits == nil)
        #expect(StripeInterpretation.refunding(revoked, amount: nil, currency: "eur").sale?.refundedMilliunits == nil)
        let entries = RevenueLedger.entries(
            for: StripeInterpretation.refunding(revoked, amount: 1_190, currency: "eur"), stored: charged,
            commission: Commissions.defaults.stripe)
        #expect(entries.map(\.kind) == [.renewal, .chargeback] && entries[1].amount.milliunits == -11_900)
    }
}
