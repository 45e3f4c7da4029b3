import CivilCalendar
import EntitlementDomain
import Encodings
import Stripe
import Testing

/// Stripe's subscriptions and checkouts as purchases: which statuses grant, for how long, and which data wins.
@Suite struct StripeInterpretationTests {
    static let periodStart: Int64 = 1_700_000_000
    static let periodEnd: Int64 = periodStart + 30 * Seconds.perDay

    let tenant: Tenant
    let settings = StripeSettings(
        webhookSecrets: ["whsec_0123456789abcdef0123"], environments: [.test], prices: ["price_pro": "pro_web"],
        products: ["prod_lifetime": "lifetime_web"], pastDueGraceDays: 3)

    init() throws {
        tenant = try Tenant(
            id: "acme", publicKeyHashes: [APIKey.hashString(APIKey.generate(.publicKey))!],
            products: ["pro_web": ["pro"], "lifetime_web": ["premium"]], stripe: settings)
    }

    private func subscription(_ fields: [String: Any]) throws -> StripeSubscription {
        var object: [String: Any] = [
            "id": "sub_1", "object": "subscription", "status": "active", "customer": "cus_1", "livemode": false,
            "start_date": Self.periodStart, "latest_invoice": "in_1",
            "items": ["data": [[
                "price": ["id": "price_pro", "product": "prod_pro"], "current_period_start": Self.periodStart,
                "current_period_end": Self.periodEnd,
            ]]],
        ]
        object.merge(fields) { $1 }
        return try Self.decoded(StripeSubscription.self, object)
    }

    /// `object` as Stripe would write it, read the way the service reads Stripe's answers.
    private static func decoded<Value: JSONReadable>(_ type: Value.Type, _ object: [String: Any]) throws -> Value {
        try JSONReader.read(Value.self, from: Array(#require(JSONValue(sortingKeysOf: object)).text.utf8))
    }

    private func purchase(_ fields: [String: Any] = [:], at observed: Int64 = periodStart + 60) throws -> StorePurchase {
        try StripeInterpretation.purchase(
            fromSubscription: try subscription(fields), observedAt: UnixTime(milliseconds: observed * 1000),
            origin: .notification, tenant: tenant, settings: settings)
    }

    private func grants(_ record: StorePurchase, at seconds: Int64) -> Bool {
        StatusCalculator.status(of: EntitlementCandidate.candidates(of: record), at: UnixTime(milliseconds: seconds * 1000))
            .isActive
    }

    @Test func anActiveSubscriptionGrantsItsPriceEntitlementsUntilThePeriodEnds() throws {
        let record = try purchase()
        #expect(record.store == .stripe && record.originalTransactionID == "sub_1" && record.transactionID == "in_1")
        #expect(record.productID == "pro_web" && record.entitlementIDs == ["pro"] && record.environment == .sandbox)
        #expect(record.expiresAt == UnixTime(milliseconds: Self.periodEnd * 1000) && record.willRenew)
        #expect(grants(record, at: Self.periodEnd - 1) && !grants(record, at: Self.periodEnd))
    }

    @Test func theLegacyTopLevelPeriodIsReadWhenItemsHaveNone() throws {
        let record = try purchase([
            "items": ["data": [["price": ["id": "price_pro"]]]], "current_period_end": Self.periodEnd + 5,
        ])
        #expect(record.expiresAt == UnixTime(milliseconds: (Self.periodEnd + 5) * 1000))
    }

    @Test func trialingGrantsAndIsMarkedAsATrial() throws {
        let record = try purchase(["status": "trialing"])
        #expect(grants(record, at: Self.periodStart + 100) && record.offerType == "trial")
    }

    @Test func cancelAtPeriodEndKeepsAccessButStopsRenewing() throws {
        let record = try purchase(["cancel_at_period_end": true])
        #expect(!record.willRenew && grants(record, at: Self.periodEnd - 1))
    }

    @Test func aScheduledCancelBeforeThePeriodEndEndsAccessThen() throws {
        let record = try purchase(["cancel_at": Self.periodStart + 10 * Seconds.perDay])
        #expect(!record.willRenew && record.expiresAt == UnixTime(milliseconds: (Self.periodStart + 10 * Seconds.perDay) * 1000))
    }

    @Test func pastDueGrantsTheGraceWindowFromThePeriodStartInBillingRetry() throws {
        let record = try purchase(["status": "past_due"])
        let graceEnd = Self.periodStart + 3 * Seconds.perDay
        // Paid until the unpaid period began; the grace window goes on from there.
        #expect(record.expiresAt == UnixTime(milliseconds: Self.periodStart * 1000))
        #expect(record.renewal == .grace(until: UnixTime(milliseconds: graceEnd * 1000)))
        #expect(grants(record, at: graceEnd - 1) && !grants(record, at: graceEnd))
    }

    @Test func pastDueWithoutGraceGrantsNothing() throws {
        var settings = self.settings
        settings.pastDueGraceDays = 0
        let record = try StripeInterpretation.purchase(
            fromSubscription: try subscription(["status": "past_due"]),
            observedAt: UnixTime(milliseconds: (Self.periodStart + 60) * 1000), origin: .notification, tenant: tenant,
            settings: settings)
        #expect(!grants(record, at: Self.periodStart + 60) && record.renewal == .billingRetry)
    }

    @Test(arguments: ["canceled", "unpaid", "incomplete", "incomplete_expired", "paused", "some_future_status"])
    func statusesThatGrantNothing(status: String) throws {
        let record = try purchase(["status": status])
        #expect(!grants(record, at: Self.periodStart + 120), "\(status)")
        #expect(record.renewal == .held(billingRetry: status == "unpaid"))
    }

    @Test func anUnmappedPriceOrAnotherModeIsRefused() throws {
        #expect(throws: DomainError.self) { try purchase(["items": ["data": [["price": ["id": "price_other"], "current_period_end": Self.periodEnd]]]]) }
        let live = #expect(throws: DomainError.self) { try purchase(["livemode": true]) }
        #expect(live?.code == .tenantMisconfigured)
    }

    @Test func withinOneSecondTheLaterStageOfTheLifeWins() throws {
        let created: Int64 = 1_700_000_000
        let incomplete = try StripeInterpretation.observationTime(created: created, status: .init(.incomplete))
        let active = try StripeInterpretation.observationTime(created: created, status: .init(.active))
        let canceled = try StripeInterpretation.observationTime(created: created, status: .init(.canceled))
        let nextSecond = try StripeInterpretation.observationTime(created: created + 1, status: .init(.incomplete))
        #expect(incomplete < active && active < canceled && canceled < nextSecond)
    }

    /// An event's `created` is checked before it is scaled to milliseconds: the last second of 9999 still ranks its
    /// statuses inside it, anything later (or earlier than year 1) is refused, never multiplied.
    @Test(arguments: [Int64.max, Int64.min, Int64.max / 1000 + 1, 10_000_000_000_000_000, 253_402_300_800, -62_135_596_801])
    func anEventCreatedOutsideWhatTheAPICarriesIsRefused(created: Int64) throws {
        let error = #expect(throws: DomainError.self) { try StripeInterpretation.observationTime(created: created) }
        #expect(error?.code == .malformedPayload)
        #expect(error?.message.hasPrefix("created is \(created) s since 1970, outside") == true)
        let last = try StripeInterpretation.observationTime(created: 253_402_300_799, status: .init(.canceled))
        #expect(last.milliseconds == 253_402_300_799_007)
    }

    /// Each of a subscription's times is refused naming Stripe's field when it lies outside what the API carries.
    @Test(arguments: [
        ("current_period_end", Int64.max), ("current_period_end", Int64.max / 1000 + 1),
        ("current_period_start", -62_135_596_801), ("start_date", Int64.min), ("cancel_at", 10_000_000_000_000_000),
        ("ended_at", 253_402_300_800),
    ])
    func aSubscriptionTimeOutsideWhatTheAPICarriesIsRefused(field: String, seconds: Int64) {
        var fields: [String: Any] = [field: seconds]
        if field.hasPrefix("current_period") {
            var item: [String: Any] = [
                "price": ["id": "price_pro"], "current_period_start": Self.periodStart, "current_period_end": Self.periodEnd,
            ]
            item[field] = seconds
            fields = ["items": ["data": [item]]]
        }
        if field == "ended_at" { fields["status"] = "canceled" }
        let error = #expect(throws: DomainError.self) { try purchase(fields) }
        #expect(error?.code == .malformedPayload)
        #expect(error?.message.hasPrefix("\(field) is \(seconds) s since 1970, outside") == true)
    }

    @Test func aPriceTimesAQuantityThatOverflowsIsNotRecorded() throws {
        let record = try purchase([
            "items": ["data": [[
                "price": ["id": "price_pro", "unit_amount": Int64.max, "currency": "usd"], "quantity": 2,
                "current_period_start": Self.periodStart, "current_period_end": Self.periodEnd,
            ]]],
        ])
        #expect(record.price == nil && record.productID == "pro_web")
    }

    @Test func anOlderSnapshotNeverReplacesANewerOne() throws {
        let newer = try purchase(["status": "canceled", "ended_at": Self.periodStart + 200], at: Self.periodStart + 200)
        let older = try purchase(at: Self.periodStart + 100)
        let merged = PurchaseVersions.merge(stored: newer, incoming: older)
        #expect(merged.renewal.isHeld && !merged.willRenew)
    }

    @Test func aRevocationStaysForTheSameInvoiceAndAPaidNewInvoiceLiftsIt() throws {
        let stored = try purchase()
        let revoked = try #require(StripeInterpretation.revoking(stored, at: UnixTime(milliseconds: (Self.periodStart + 90) * 1000), reason: "REFUNDED"))
        let laterSnapshot = try purchase(at: Self.periodStart + 300)
        #expect(PurchaseVersions.merge(stored: revoked, incoming: laterSnapshot).revokedAt == revoked.revokedAt)
        let invoice = try Self.decoded(
            StripeInvoice.self,
            [
                "id": "in_2", "lines": ["data": [["period": ["start": Self.periodEnd, "end": Self.periodEnd + 30 * Seconds.perDay]]]],
            ])
        let paidInvoice = try StripeInterpretation.paid(
            invoice, stored: revoked, observedAt: UnixTime(milliseconds: (Self.periodEnd + 10) * 1000))
        let paid = try #require(paidInvoice)
        let renewed = PurchaseVersions.merge(stored: revoked, incoming: paid)
        #expect(renewed.revokedAt == nil && renewed.transactionID == "in_2" && grants(renewed, at: Self.periodEnd + 100))
    }

    @Test func aOneTimeCheckoutIsALifetimePurchaseKeyedByItsPaymentIntent() throws {
        let session = try Self.decoded(
            StripeCheckoutSession.self,
            [
                "id": "cs_1", "mode": "payment", "payment_status": "paid", "payment_intent": "pi_1", "livemode": false,
                "created": Self.periodStart, "line_items": ["data": [["price": ["id": "price_x", "product": "prod_lifetime"]]]],
            ])
        let record = try #require(
            try StripeInterpretation.purchase(
                fromCheckoutSession: session, observedAt: UnixTime(milliseconds: Self.periodStart * 1000),
                origin: .storeAPI, tenant: tenant, settings: settings))
        #expect(record.originalTransactionID == "pi_1" && record.transactionID == "cs_1" && record.expiresAt == nil)
        #expect(record.entitlementIDs == ["premium"] && grants(record, at: Self.periodStart + 1))
    }

    @Test func aDelayedPaymentGrantsNothingUntilPaid() throws {
        let session = try Self.decoded(
            StripeCheckoutSession.self,
            [
                "id": "cs_2", "mode": "payment", "payment_status": "unpaid", "metadata": ["price_id": "price_pro"],
            ])
        let record = try #require(
            try StripeInterpretation.purchase(
                fromCheckoutSession: session, observedAt: UnixTime(milliseconds: Self.periodStart * 1000),
                origin: .notification, tenant: tenant, settings: settings))
        #expect(record.originalTransactionID == "cs_2" && !grants(record, at: Self.periodStart + 1))
    }
}
