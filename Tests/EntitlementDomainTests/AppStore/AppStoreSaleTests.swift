import AppStore
import CivilCalendar
import EntitlementDomain
import Foundation
import Testing

/// What ``AppStoreInterpretation`` takes from a transaction for the revenue ledger: the kind of sale, the offer, the
/// storefront as a country and the refunded share, on payloads as Apple's JSON spells them.
@Suite struct AppStoreSaleTests {
    func sale(_ fields: [String: Any]) throws -> PurchaseSale? {
        try AppStoreInterpretationTests().purchase(["price": 9_990, "currency": "usd"].merging(fields) { $1 }).sale
    }

    @Test func theTransactionReasonSaysPurchaseOrRenewal() throws {
        #expect(try sale(["transactionReason": "PURCHASE"])?.kind == .subscriptionPurchase)
        #expect(try sale(["transactionReason": "RENEWAL"])?.kind == .subscriptionRenewal)
        // Signed before Apple added the field: the subscription's first transaction is its purchase.
        #expect(try sale(["transactionId": "1000"])?.kind == .subscriptionPurchase)
        #expect(try sale(["transactionId": "1002"])?.kind == .subscriptionRenewal)
        let lifetime = try sale(["productId": "lifetime", "type": "Non-Consumable", "expiresDate": NSNull()])
        #expect(lifetime?.kind == .oneTime)
        let pass = try sale(["productId": "pass", "type": "Non-Renewing Subscription", "transactionReason": "PURCHASE"])
        #expect(pass?.kind == .oneTime)
    }

    @Test func eachOfferTypeIsItsKindAndAFreeIntroductoryOfferIsATrial() throws {
        let offers: [(Int?, String?, OfferKind)] = [
            (nil, nil, .none), (1, "FREE_TRIAL", .freeTrial), (1, "PAY_AS_YOU_GO", .introductory),
            (1, "PAY_UP_FRONT", .introductory), (2, "PAY_AS_YOU_GO", .promotional), (3, "FREE_TRIAL", .offerCode),
            (4, "FREE_TRIAL", .winBack), (9, nil, .promotional),
        ]
        for (type, discount, kind) in offers {
            let fields: [String: Any] = ["offerType": type.map { $0 as Any } ?? NSNull(), "offerDiscountType": discount ?? NSNull()]
            #expect(try sale(fields)?.offer == kind, "\(String(describing: type)) \(String(describing: discount))")
        }
    }

    @Test func theStorefrontBecomesAnAlpha2Country() throws {
        #expect(try sale(["storefront": "USA"])?.country == "US")
        #expect(try sale(["storefront": "deu"])?.country == "DE")
        // Not in ISO 3166-1 (Apple's Kosovo storefront): kept as Apple gave it.
        #expect(try sale(["storefront": "XKS"])?.country == "XKS")
        #expect(try sale(["storefront": NSNull()])?.country == "")
    }

    @Test func aRefundIsApplesPercentageOfThePriceAndAFamilyRevocationMovesNoMoney() throws {
        let revoked = Int64(AppStoreInterpretationTests.purchased + Milliseconds.perDay)
        #expect(try sale(["revocationDate": revoked])?.refundedMilliunits == 9_990)
        #expect(try sale(["revocationDate": revoked, "revocationPercentage": 50_000])?.refundedMilliunits == 4_995)
        #expect(try sale(["revocationDate": revoked, "revocationPercentage": 33_333])?.refundedMilliunits == 3_329)
        // Out of range, clamped: never more than the price, never less than nothing.
        #expect(try sale(["revocationDate": revoked, "revocationPercentage": 250_000])?.refundedMilliunits == 9_990)
        #expect(try sale(["revocationDate": revoked, "revocationPercentage": -5])?.refundedMilliunits == 0)
        let family = try sale(["revocationDate": revoked, "revocationType": "FAMILY_REVOKE"])
        #expect(family?.refundedMilliunits == nil)
        #expect(try sale([:])?.refundedMilliunits == nil)
        // The largest price Apple could sign cannot overflow the share.
        let huge = try AppStoreInterpretationTests().purchase(
            ["price": Int64.max, "currency": "USD", "revocationDate": revoked, "revocationPercentage": 99_999])
        #expect(huge.sale?.refundedMilliunits == Int64.max / 100_000 * 99_999 + Int64.max % 100_000 * 99_999 / 100_000)
    }

    @Test func aNegativePriceIsRefused() throws {
        #expect(throws: DomainError.malformedPayload("")) {
            try AppStoreInterpretationTests().purchase(["price": -1, "currency": "USD"])
        }
    }
}
