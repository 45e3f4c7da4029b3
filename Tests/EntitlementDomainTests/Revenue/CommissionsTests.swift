import EntitlementDomain
import Testing

/// Commission rates as the tenants file writes them, and what they take of a payment.
@Suite struct CommissionsTests {
    @Test func aPercentIsReadExactlyToThreeDecimals() throws {
        let read: [(String, Int)] = [("30", 30_000), ("2.9", 2_900), ("15.125", 15_125), ("100", 100_000), ("0", 0), ("0.001", 1)]
        for (text, thousandths) in read { #expect(try CommissionRate(percent: text).thousandths == thousandths, "\(text)") }
        for text in ["100.001", "-1", "1e2", "2.", ".5", "1.2345", "1000", "", "3O", "٣"] {
            #expect(throws: TenantRuleError.self, "\(text)") { try CommissionRate(percent: text) }
        }
    }

    @Test func theShareIsRoundedTowardZeroAndCannotOverflow() {
        let apple = CommissionRate(thousandths: 30_000)
        #expect(apple.of(4_990) == 1_497 && apple.of(-4_990) == -1_497 && apple.of(1) == 0)
        #expect(CommissionRate(thousandths: 100_000).of(Int64.max) == Int64.max)
        #expect(CommissionRate(thousandths: 99_999).of(Int64.min) < 0)
    }

    @Test func eachStoreHasItsDefaults() {
        #expect(Commissions.defaults[.appStore].rate.thousandths == 30_000)
        #expect(Commissions.defaults[.appStore].afterFirstYear?.thousandths == 15_000)
        #expect(Commissions.defaults[.playStore].rate.thousandths == 15_000)
        #expect(Commissions.defaults[.playStore].afterFirstYear == nil)
        #expect(Commissions.defaults[.stripe].rate.thousandths == 2_900)
    }

    @Test func aSubscriptionsSecondYearTakesItsOwnRate() {
        let apple = Commissions.defaults.appStore
        let start = UnixTime(milliseconds: 1_700_000_000_000)
        #expect(apple.rate(productID: "p", periodStart: start.adding(days: 364), subscribedAt: start).thousandths == 30_000)
        #expect(apple.rate(productID: "p", periodStart: start.adding(days: 365), subscribedAt: start).thousandths == 15_000)
        #expect(apple.rate(productID: "p", periodStart: start.adding(days: 800), subscribedAt: nil).thousandths == 30_000)
    }
}
