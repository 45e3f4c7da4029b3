import Stripe
import Testing

@Suite struct StripeAmountTests {
    @Test(arguments: [
        (999, "usd", 9990), (999, "EUR", 9990), (500, "jpy", 500_000), (500, "KRW", 500_000), (1250, "kwd", 1250),
        (0, "usd", 0),
    ] as [(Int64, String, Int64)])
    func amountsAreMilliunitsOfTheCurrencysUnit(amount: Int64, currency: String, milliunits: Int64) {
        #expect(StripeAmount.milliunits(amount, currency: currency) == milliunits)
    }

    @Test func anAmountThatWouldOverflowIsNone() {
        #expect(StripeAmount.milliunits(.max / 2, currency: "usd") == nil)
    }
}
