import CivilCalendar
import EntitlementDomain
@testable import EntitlementServices
import Testing
import TestSupport

/// Google's voided purchases read page by page: inside Google's 30 days, every page, and no loop when Google's
/// paging goes round.
@Suite struct VoidedPurchasePagesTests {
    @Test func pagesStopWhenGoogleGivesAPageTokenAgain() async throws {
        let play = try PlayServices()
        let entry = #"{"purchaseToken":"token-1","orderId":"GPA.1","voidedTimeMillis":"1781481500000"}"#
        play.answers.set(
            "/purchases/voidedpurchases",
            .status(200, #"{"voidedPurchases":[\#(entry)],"tokenPagination":{"nextPageToken":"page-2"}}"#),
            .status(200, #"{"voidedPurchases":[\#(entry)],"tokenPagination":{"nextPageToken":"page-3"}}"#),
            .status(200, #"{"tokenPagination":{"nextPageToken":"page-2"}}"#))
        let tenant = try #require(play.tenants.directory.tenant(id: PlayServices.tenantID))
        let now = play.now.milliseconds
        // From before Google's 30 days: kept a minute inside them.
        var pages = VoidedPurchasePages(
            api: try play.purchases.api(for: tenant), from: 0, to: nil, now: now, tenantID: tenant.id, log: play.log)
        var read: [Int] = []
        while let page = try await pages.next() { read.append(page.count) }
        #expect(read == [1, 1, 0])
        let start = now - 30 * Milliseconds.perDay + Milliseconds.perMinute
        #expect(play.google.apiRequests.map(\.target) == [
            PlayServices.path("/purchases/voidedpurchases?startTime=\(start)&type=1&maxResults=1000"),
            PlayServices.path("/purchases/voidedpurchases?startTime=\(start)&type=1&maxResults=1000&token=page-2"),
            PlayServices.path("/purchases/voidedpurchases?startTime=\(start)&type=1&maxResults=1000&token=page-3"),
        ])
    }
}
