import CivilCalendar
import EntitlementDomain
@testable import EntitlementServices
import Foundation
import TestSupport
import Testing

/// The safety net for missed notifications: Google's voided purchases listed since the last poll, every page, and
/// what the server holds revoked.
@Suite struct VoidedPurchasesPollerTests {
    static let day = Milliseconds.perDay

    @Test func aPollRevokesWhatGoogleListsOnEveryPageAndMovesTheCursor() async throws {
        let play = try PlayServices()
        try await play.stored("token-1", order: "GPA.1111..2", owed: false)
        try await play.stored("token-2", by: "bob", order: "GPA.2222..5", owed: false)
        let voided = String(play.now.milliseconds - Milliseconds.perMinute)
        play.answers.set(
            "/purchases/voidedpurchases",
            .status(200, """
                {"voidedPurchases":[
                  {"kind":"androidpublisher#voidedPurchase","purchaseToken":"token-1","orderId":"GPA.1111..2","voidedTimeMillis":"\(voided)","voidedReason":5},
                  {"purchaseToken":"token-never-seen","orderId":"GPA.9","voidedTimeMillis":"\(voided)"}],
                 "tokenPagination":{"nextPageToken":"page-2"}}
                """),
            .status(200, """
                {"voidedPurchases":[{"purchaseToken":"token-2","orderId":"GPA.2222..3","voidedTimeMillis":"\(voided)","voidedReason":1}]}
                """))
        let poller = VoidedPurchasesPoller(engine: play.engine, tenants: play.tenants, purchases: play.purchases, log: play.log)
        let tenant = try #require(play.tenants.directory.tenant(id: PlayServices.tenantID))
        await poller.poll(tenant)

        let revoked = try #require(try play.purchase("token-1"))
        #expect(revoked.revokedAt?.milliseconds == play.now.milliseconds - Milliseconds.perMinute && revoked.revocationReason == "VOIDED_FRAUD")
        #expect(try await play.state("alice").status.activeIDs.isEmpty)
        // An earlier renewal's order took back a period that is over.
        #expect(try play.purchase("token-2")?.revokedAt == nil)
        #expect(try await play.state("bob").status.activeIDs == ["pro"])

        let requests = play.google.apiRequests.map(\.target)
        // The poll ends a little before now: Google refuses an endTime in its future.
        let now = play.now.milliseconds - 5_000
        #expect(requests == [
            PlayServices.path("/purchases/voidedpurchases?startTime=\(now - 30 * Self.day + Milliseconds.perMinute)&type=1&maxResults=1000&endTime=\(now)"),
            PlayServices.path("/purchases/voidedpurchases?startTime=\(now - 30 * Self.day + Milliseconds.perMinute)&type=1&maxResults=1000&endTime=\(now)&token=page-2"),
        ])
        #expect(try play.engine.purchases.pollCursor(tenantID: PlayServices.tenantID, name: "play_voided_purchases") == now)
    }

    @Test func theNextPollStartsALittleBeforeTheLastEndedAndAFailureKeepsTheCursor() async throws {
        let play = try PlayServices()
        play.answers.set("/purchases/voidedpurchases", .status(200, "{}"))
        let poller = VoidedPurchasesPoller(engine: play.engine, tenants: play.tenants, purchases: play.purchases, log: play.log)
        let tenant = try #require(play.tenants.directory.tenant(id: PlayServices.tenantID))
        await poller.poll(tenant)
        let first = play.now.milliseconds - 5_000
        play.clock.advance(milliseconds: Milliseconds.perHour)
        play.answers.set("/purchases/voidedpurchases", .status(503))
        await poller.poll(tenant)
        #expect(try play.engine.purchases.pollCursor(tenantID: PlayServices.tenantID, name: "play_voided_purchases") == first)
        play.answers.set("/purchases/voidedpurchases", .status(200, "{}"))
        await poller.poll(tenant)
        let last = try #require(play.google.apiRequests.last?.target)
        #expect(last.contains("startTime=\(first - 10 * Milliseconds.perMinute)&"))
        #expect(try play.engine.purchases.pollCursor(tenantID: PlayServices.tenantID, name: "play_voided_purchases") == play.now.milliseconds - 5_000)
    }
}
