import Encodings
import GooglePlay
import Testing

/// `google.type.Money` as Google's JSON writes it, and amounts that are not money.
@Suite struct GoogleMoneyTests {
    private func money(_ json: String) throws -> GoogleMoney {
        try JSONReader.read(GoogleMoney.self, from: Array(json.utf8))
    }

    @Test func unitsAreAStringOrANumberAndNanosShareTheirSign() throws {
        #expect(try money(#"{"currencyCode":"USD","units":"9","nanos":990000000}"#).milliunits == 9_990)
        #expect(try money(#"{"currencyCode":"JPY","units":1200}"#).milliunits == 1_200_000)
        #expect(try money(#"{"units":"-1","nanos":-750000000}"#).milliunits == -1_750)
        #expect(try money(#"{"nanos":-500000}"#).milliunits == 0)
        #expect(try money(#"{"currencyCode":"EUR"}"#).milliunits == 0)
        // Finer than a thousandth: dropped toward zero.
        #expect(try money(#"{"units":"0","nanos":999999}"#).milliunits == 0)
    }

    @Test func whatIsNotAnAmountHasNone() throws {
        #expect(try money(#"{"units":"1","nanos":-1}"#).milliunits == nil)
        #expect(try money(#"{"units":"0","nanos":1000000000}"#).milliunits == nil)
        #expect(try money(#"{"units":"9223372036854775807"}"#).milliunits == nil)
        #expect(try money(#"{"units":"-9223372036854775"}"#).milliunits == -9_223_372_036_854_775_000)
        #expect(throws: JSONReadError.self) { try money(#"{"units":"12abc"}"#) }
        #expect(throws: JSONReadError.self) { try money(#"{"units":"99999999999999999999"}"#) }
        #expect(throws: JSONReadError.self) { try money(#"{"units":true}"#) }
    }

    @Test func anOrderDecodesWhatTheLedgerReads() throws {
        let json = """
            {"orderId":"GPA.1..0","purchaseToken":"t","state":"REFUNDED","createTime":"2026-01-01T00:00:00Z",
             "buyerAddress":{"buyerState":"BY","buyerCountry":"DE","buyerPostcode":"80331"},
             "total":{"currencyCode":"EUR","units":"5","nanos":490000000},
             "tax":{"currencyCode":"EUR","units":"0","nanos":880000000},
             "developerRevenueInBuyerCurrency":{"currencyCode":"EUR","units":"3","nanos":890000000},
             "lineItems":[{"productId":"premium","productTitle":"Premium","listingPrice":{"currencyCode":"EUR","units":"4"},
               "subscriptionDetails":{"basePlanId":"monthly","offerPhase":"BASE","offerPhaseDetails":{"baseDetails":{}},
                 "servicePeriodStartTime":"2026-01-01T00:00:00Z","servicePeriodEndTime":"2026-02-01T00:00:00Z"}}],
             "orderHistory":{"refundEvent":{"eventTime":"2026-01-02T00:00:00Z","refundReason":"OTHER",
               "refundDetails":{"total":{"currencyCode":"EUR","units":"5","nanos":490000000}}}},
             "salesChannel":"IN_APP","pointsDetails":{}}
            """
        let order = try JSONReader.read(PlayOrder.self, from: Array(json.utf8))
        #expect(order.orderId == "GPA.1..0" && order.state == "REFUNDED" && order.buyerAddress?.buyerCountry == "DE")
        #expect(order.total?.milliunits == 5_490 && order.tax?.milliunits == 880)
        #expect(order.developerRevenueInBuyerCurrency?.milliunits == 3_890)
        #expect(order.lineItems?.first?.subscriptionDetails?.offerPhaseDetails?.kind == .basePrice)
        #expect(order.refundedMilliunits == 5_490)
    }
}
