import CivilCalendar
import EntitlementDomain
import GooglePlay
import GooglePlayAPI
import RPCCore

/// Google's voided purchases (`purchases.voidedpurchases.list`, subscriptions included), read page by page: what the
/// voided-purchases poll revokes and what confirms a voided-purchase notification.
struct VoidedPurchasePages {
    /// Google lists at most this far back.
    static let window = 30 * Milliseconds.perDay
    /// Google may list a void a little after it happened: its list filters on when its systems saw the void, not on
    /// `voidedTimeMillis`.
    static let listingDelay = 10 * Milliseconds.perMinute
    /// More distinct page tokens than 30 days of voids can fill: Google's paging is going round.
    static let maxPages = 1000

    private let api: PlayDeveloperAPI
    private let startTime: Int64
    private let endTime: Int64?
    private let tenantID: String
    private let log: Logger
    private var pageToken: String?
    private var seenTokens: Set<String> = []
    private var finished = false

    /// The voids Google saw from `startTime` (kept a minute inside Google's window, so the request is never refused
    /// as too old) to `endTime`, or to Google's own now when nil.
    init(api: PlayDeveloperAPI, from startTime: Int64, to endTime: Int64?, now: Int64, tenantID: String, log: Logger) {
        self.api = api
        self.startTime = max(startTime, now - Self.window + Milliseconds.perMinute)
        self.endTime = endTime
        self.tenantID = tenantID
        self.log = log
    }

    /// The next page's voided purchases; nil once the last page was read.
    mutating func next() async throws(GooglePlayAPIError) -> [VoidedPurchase]? {
        guard !finished else { return nil }
        let page = try await api.voidedPurchases(startTime: startTime, endTime: endTime, pageToken: pageToken)
        pageToken = page.tokenPagination?.nextPageToken.flatMap { $0.isEmpty ? nil : $0 }
        // A page token Google gave before, or more pages than 30 days can fill: stop rather than loop.
        if let token = pageToken, !seenTokens.insert(token).inserted || seenTokens.count > Self.maxPages {
            log.warning("play voided purchases: Google's paging repeats itself; stopped", ["tenant": tenantID])
            pageToken = nil
        }
        finished = pageToken == nil
        return page.voidedPurchases ?? []
    }

    /// When Google says the purchase was voided, if it says.
    static func voidedAt(_ voided: VoidedPurchase) throws(DomainError) -> UnixTime? {
        try UnixTime.checked(milliseconds: GooglePlayTime.milliseconds(decimal: voided.voidedTimeMillis), field: "voidedTimeMillis")
    }
}
