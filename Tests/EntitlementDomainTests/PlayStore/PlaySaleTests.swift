import CivilCalendar
import EntitlementDomain
import Encodings
import Foundation
import GooglePlay
import Testing

/// What a Google Play purchase says of its money (``PlayStoreInterpretation``'s sale): Google's order where fetched,
/// else only what the subscription's data states exactly.
@Suite struct PlaySaleTests {
    typealias Google = PlayStoreInterpretationTests
    static let renewal = "GPA.1234-5678-9012-34567..1"

    let rules = try! PlayStoreInterpretationTests()

    /// `orders.get`'s answer for `orderID`: `total` (tax `tax` within) in `currency`, bought in Germany.
    static func order(
        _ orderID: String = renewal, total: String = "11.99", tax: String = "1.91", revenue: String? = "8.56",
        currency: String = "EUR", phase: String = "baseDetails", refund: [String: Any]? = nil,
        partialRefunds: [[String: Any]]? = nil
    ) throws -> PlayOrder {
        func money(_ amount: String) -> [String: Any] {
            let parts = amount.split(separator: ".")
            let nanos = parts.count > 1 ? Int(parts[1].padding(toLength: 9, withPad: "0", startingAt: 0))! : 0
            return ["currencyCode": currency, "units": String(parts[0]), "nanos": amount.hasPrefix("-") ? -nanos : nanos]
        }
        var history: [String: Any] = ["processedEvent": ["eventTime": Google.time(Google.started)]]
        if let refund { history["refundEvent"] = refund }
        if let partialRefunds { history["partialRefundEvents"] = partialRefunds }
        var object: [String: Any] = [
            "orderId": orderID, "purchaseToken": Google.token, "state": "PROCESSED",
            "createTime": Google.time(Google.fetched - 1000), "buyerAddress": ["buyerCountry": "DE"],
            "total": money(total), "tax": money(tax), "orderHistory": history,
            "lineItems": [[
                "productId": "premium", "total": money(total), "tax": money(tax),
                "subscriptionDetails": [
                    "basePlanId": "monthly", "offerPhaseDetails": [phase: [:]],
                    "servicePeriodStartTime": Google.time(Google.fetched - 2 * Google.day),
                    "servicePeriodEndTime": Google.time(Google.expires),
                ],
            ]],
        ]
        if let revenue { object["developerRevenueInBuyerCurrency"] = money(revenue) }
        return try JSONReader.read(PlayOrder.self, from: Array(#require(JSONValue(sortingKeysOf: object)).text.utf8))
    }

    func purchase(_ data: SubscriptionPurchaseV2, order: PlayOrder? = nil, notifiedAt: Int64? = nil) throws -> StorePurchase {
        let facts = PlayStoreInterpretation.SubscriptionFacts(
            token: Google.token, purchase: data, fetchedAt: UnixTime(milliseconds: Google.fetched),
            notifiedAt: notifiedAt.map(UnixTime.init(milliseconds:)), order: order)
        return try PlayStoreInterpretation.purchase(
            fromSubscription: facts, productID: "premium", tenant: rules.tenant, settings: rules.settings)
    }

    static func recurring(_ phase: String?, price: [String: Any]? = ["currencyCode": "USD", "units": "9", "nanos": 990_000_000])
        -> [String: Any]
    {
        var plan: [String: Any] = ["autoRenewEnabled": true]
        if let price { plan["recurringPrice"] = price }
        var item: [String: Any] = ["autoRenewingPlan": plan]
        if let phase { item["offerPhase"] = [phase: [:]] }
        return item
    }

    @Test func googlesOrderIsWhatWasCharged() throws {
        let bought = try purchase(Google.subscription(), order: Self.order())
        #expect(bought.price == PurchasePrice(milliunits: 11_990, currency: "EUR"))
        let sale = try #require(bought.sale)
        #expect(sale.kind == .subscriptionRenewal && sale.offer == .none && sale.country == "DE")
        #expect(sale.taxMilliunits == 1_910 && sale.reportedProceedsMilliunits == 8_560 && sale.refundedMilliunits == nil)
        #expect(sale.periodStart?.milliseconds == Google.fetched - 2 * Google.day)
        // The ledger takes Google's revenue as the proceeds, and the period the order paid for.
        let entry = try #require(
            RevenueLedger.entries(for: bought, stored: nil, commission: Commissions.defaults.playStore).first)
        #expect(entry.kind == .renewal && entry.proceedsMilliunits == 8_560 && entry.taxMilliunits == 1_910)
        #expect(entry.periodStart.milliseconds == Google.fetched - 2 * Google.day && entry.occurredAt == entry.periodStart)
    }

    @Test func theFirstOrderIsAPurchaseAndEachPhaseItsOffer() throws {
        let first = "GPA.1234-5678-9012-34567"
        let data = try Google.subscription(item: ["latestSuccessfulOrderId": first])
        let bought = try purchase(data, order: Self.order(first, phase: "introductoryPriceDetails"))
        #expect(bought.sale?.kind == .subscriptionPurchase && bought.sale?.offer == .introductory)
        let trial = try purchase(data, order: Self.order(first, total: "0", tax: "0", revenue: "0", phase: "freeTrialDetails"))
        #expect(trial.sale?.offer == .freeTrial && trial.price?.milliunits == 0)
        #expect(
            RevenueLedger.entries(for: trial, stored: nil, commission: Commissions.defaults.playStore).map(\.kind)
                == [.trialStart])
        let prorated = try purchase(data, order: Self.order(first, phase: "prorationPeriodDetails"))
        #expect(prorated.sale?.offer == OfferKind.none)
    }

    @Test func anOrderOfAnotherIDIsNotThisOnes() throws {
        let bought = try purchase(Google.subscription(item: Self.recurring(nil)), order: Self.order("GPA.other..4"))
        #expect(bought.price == nil && bought.sale?.taxMilliunits == nil && bought.sale?.country == "US")
    }

    @Test func withoutTheOrderOnlyABasePriceOrAFreeTrialStatesTheAmount() throws {
        let base = try purchase(Google.subscription(item: Self.recurring("basePrice")))
        #expect(base.price == PurchasePrice(milliunits: 9_990, currency: "USD"))
        #expect(base.sale?.country == "US" && base.sale?.reportedProceedsMilliunits == nil)
        let trial = try purchase(Google.subscription(item: Self.recurring("freeTrial")))
        #expect(trial.price == PurchasePrice(milliunits: 0, currency: "USD") && trial.sale?.offer == .freeTrial)
        // An introductory price, a prorated period, or no phase at all: the amount is not the recurring price.
        for phase in ["introductoryPrice", "prorationPeriod", nil] {
            let unknown = try purchase(Google.subscription(item: Self.recurring(phase)))
            #expect(unknown.price == nil && unknown.sale != nil, "\(phase ?? "none")")
        }
        // A renewal's period began about when Google told us of it.
        let renewed = try purchase(Google.subscription(item: Self.recurring("basePrice")), notifiedAt: Google.fetched - 5000)
        #expect(renewed.sale?.periodStart?.milliseconds == Google.fetched - 5000)
        // The first order's period is the subscription's start.
        let first = try purchase(Google.subscription(
            ["latestOrderId": "GPA.1"],
            item: Self.recurring("basePrice").merging(["latestSuccessfulOrderId": "GPA.1"], uniquingKeysWith: { $1 })))
        #expect(first.sale?.periodStart == nil && first.purchasedAt.milliseconds == Google.started)
    }

    @Test func aNegativeRecurringPriceIsRefused() throws {
        let data = try Google.subscription(
            item: Self.recurring("basePrice", price: ["currencyCode": "USD", "units": "-1", "nanos": 0]))
        #expect(throws: DomainError.self) { try purchase(data) }
    }

    @Test func nothingWasChargedBeforeTheFirstSuccessfulOrder() throws {
        let pending = try purchase(
            Google.subscription(
                ["subscriptionState": "SUBSCRIPTION_STATE_PENDING", "latestOrderId": NSNull()],
                item: Self.recurring("basePrice").merging(["latestSuccessfulOrderId": NSNull()], uniquingKeysWith: { $1 })))
        #expect(pending.sale == nil && pending.price == nil)
    }

    @Test func aOneTimeProductsAmountComesOnlyFromItsOrder() throws {
        let data = try Google.product(["orderId": "GPA.3398-1234-5678-90123"])
        func product(_ data: ProductPurchase, order: PlayOrder?) throws -> StorePurchase {
            try PlayStoreInterpretation.purchase(
                fromProduct: data, token: Google.token, productID: "lifetime",
                fetchedAt: UnixTime(milliseconds: Google.fetched), tenant: rules.tenant, settings: rules.settings,
                origin: .device, order: order)
        }
        let withOrder = try product(data, order: Self.order("GPA.3398-1234-5678-90123", total: "29.99", tax: "4.79"))
        #expect(withOrder.price == PurchasePrice(milliunits: 29_990, currency: "EUR"))
        #expect(withOrder.sale?.kind == .oneTime && withOrder.sale?.country == "DE" && withOrder.sale?.taxMilliunits == 4_790)
        let without = try product(data, order: nil)
        #expect(without.price == nil && without.sale?.kind == .oneTime && without.sale?.country == "US")
        let pending = try product(Google.product(["purchaseState": 2, "orderId": NSNull()]), order: nil)
        #expect(pending.sale == nil)
        var canceledOrder = try Self.order("GPA.3398-1234-5678-90123")
        canceledOrder.state = "CANCELED"
        #expect(try product(data, order: canceledOrder).sale == nil)
    }

    @Test func aRefundIsWhatTheOrderSaysGoogleGaveBack() throws {
        let full = try Self.order(refund: [
            "eventTime": Google.time(Google.fetched),
            "refundDetails": ["total": ["currencyCode": "EUR", "units": "11", "nanos": 990_000_000]],
        ])
        #expect(full.refundedMilliunits == 11_990)
        let partial = try Self.order(partialRefunds: [
            ["refundDetails": ["total": ["currencyCode": "EUR", "units": "2", "nanos": 0]]],
            ["refundDetails": ["total": ["currencyCode": "EUR", "units": "1", "nanos": 500_000_000]]],
        ])
        #expect(partial.refundedMilliunits == 3_500)
        #expect(try Self.order().refundedMilliunits == nil)
        // Voided: the refund the order states, else the whole price.
        var bought = try purchase(Google.subscription(), order: partial)
        bought.sale?.refundedMilliunits = nil
        let voided = try #require(
            PlayStoreInterpretation.revoking(bought, orderID: Self.renewal, voidedAt: UnixTime(milliseconds: Google.fetched), reason: "VOIDED"))
        #expect(voided.sale?.refundedMilliunits == 11_990)
        let entries = RevenueLedger.entries(for: voided, stored: bought, commission: Commissions.defaults.playStore)
        #expect(entries.map(\.kind) == [.renewal, .refund])
        // The refund takes back the order's tax and Google's revenue in full.
        #expect(entries[1].amount.milliunits == -11_990 && entries[1].taxMilliunits == -1_910)
        #expect(entries[1].proceedsMilliunits == -8_560)
        let chargeback = try #require(
            PlayStoreInterpretation.revoking(
                bought, orderID: nil, voidedAt: UnixTime(milliseconds: Google.fetched), reason: "VOIDED_CHARGEBACK"))
        #expect(
            RevenueLedger.entries(for: chargeback, stored: bought, commission: Commissions.defaults.playStore).map(\.kind)
                == [.renewal, .chargeback])
    }

    @Test func aPurchaseReplacingAnotherIsAProductChange() throws {
        let first = "GPA.2222-5678-9012-34567"
        let data = try Google.subscription(
            ["linkedPurchaseToken": "old-token", "latestOrderId": first], item: ["latestSuccessfulOrderId": first])
        let upgrade = try purchase(data, order: Self.order(first))
        #expect(upgrade.replaces == "old-token")
        #expect(
            RevenueLedger.entries(for: upgrade, stored: nil, commission: Commissions.defaults.playStore).map(\.kind)
                == [.productChange])
    }
}
