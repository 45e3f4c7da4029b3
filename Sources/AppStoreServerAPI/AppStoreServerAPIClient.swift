import CivilCalendar
import Encodings
public import Foundation
import HTTP1
public import OutboundHTTP

/// Which of Apple's two App Store Server API hosts a call goes to.
public enum AppStoreAPIEnvironment: String, Sendable, Hashable, CaseIterable {
    case production, sandbox
}

/// One tenant's App Store Server API: bearer tokens from its In-App Purchase key, Apple's production and sandbox hosts
/// (or a local fake's, from configuration), failures that may pass (429, 5xx, no answer) retried with backoff by the
/// outbound client, and Apple's error bodies read. What comes back is signed data for the existing verifier:
/// nothing here is trusted because it came over TLS.
public struct AppStoreServerAPIClient: Sendable {
    public static let productionURL = "https://api.storekit.apple.com"
    public static let sandboxURL = "https://api.storekit-sandbox.apple.com"
    static let maxErrorBytes = 300
    /// 20 transactions a page: 10,000 transactions bounds what one history holds in memory.
    static let maxHistoryPages = 500

    let tokens: AppStoreAPITokens
    let http: OutboundHTTPClient
    let baseURLs: [AppStoreAPIEnvironment: OutboundURL]
    let now: @Sendable () -> Int64

    /// - Parameter now: Unix seconds, for the tokens.
    public init(
        credentials: AppStoreAPICredentials, http: OutboundHTTPClient, productionURL: String = Self.productionURL,
        sandboxURL: String = Self.sandboxURL, now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
    ) throws(AppStoreServerAPIError) {
        var urls: [AppStoreAPIEnvironment: OutboundURL] = [:]
        for (environment, text) in [(AppStoreAPIEnvironment.production, productionURL), (.sandbox, sandboxURL)] {
            guard let url = OutboundURL(text), url.target == "/" || url.target.isEmpty else {
                throw AppStoreServerAPIError(
                    .configuration, "the \(environment.rawValue) App Store Server API URL \(text) is not an http(s) origin")
            }
            urls[environment] = url
        }
        tokens = AppStoreAPITokens(credentials: credentials)
        self.http = http
        baseURLs = urls
        self.now = now
    }

    /// Get Transaction Info: the signed transaction (JWS) for any transaction ID of the customer, and the environment
    /// that knew it. Asked of each of `environments` in turn while the one before answers `TransactionIdNotFoundError`
    /// (Apple's advice: production first, then sandbox).
    public func transactionInfo(_ transactionID: String, in environments: [AppStoreAPIEnvironment])
        async throws(AppStoreServerAPIError) -> (signedTransactionInfo: String, environment: AppStoreAPIEnvironment)
    {
        let id = try Self.pathComponent(transactionID, "transaction ID")
        var lastError: AppStoreServerAPIError?
        for environment in environments {
            do throws(AppStoreServerAPIError) {
                let body = try await send("GET", "/inApps/v1/transactions/\(id)", in: environment)
                let info: TransactionInfoResponse = try decode(body, "Get Transaction Info")
                return (info.signedTransactionInfo, environment)
            } catch where error.appleErrorCode == AppleErrorCodes.transactionIDNotFound {
                lastError = error
            }
        }
        throw lastError ?? AppStoreServerAPIError(.configuration, "no App Store environment to ask")
    }

    /// Get All Subscription Statuses: the newest signed transaction and renewal info of each of the customer's
    /// subscriptions, with Apple's status, from one environment.
    public func subscriptionStatuses(_ transactionID: String, in environment: AppStoreAPIEnvironment)
        async throws(AppStoreServerAPIError) -> [AppStoreSubscriptionStatus]
    {
        let id = try Self.pathComponent(transactionID, "transaction ID")
        let body = try await send("GET", "/inApps/v1/subscriptions/\(id)", in: environment)
        let response: StatusResponse = try decode(body, "Get All Subscription Statuses")
        return response.data.flatMap(\.lastTransactions)
    }

    /// Get Transaction History (v2): every signed transaction of the customer behind `transactionID`, all product types
    /// and states (refunded, upgraded, finished consumables), over all of Apple's pages, in Apple's order (by
    /// modification date, oldest first: a transaction modified later appears again with its new data). The first page
    /// is asked of each of `environments` in turn while the one before answers `TransactionIdNotFoundError`; the
    /// following pages pass the `revision` of the one before, with the same query, to the environment that knew it.
    public func transactionHistory(_ transactionID: String, in environments: [AppStoreAPIEnvironment])
        async throws(AppStoreServerAPIError) -> AppStoreTransactionHistory
    {
        let id = try Self.pathComponent(transactionID, "transaction ID")
        let path = "/inApps/v2/history/\(id)"
        var lastError: AppStoreServerAPIError?
        for environment in environments {
            let first: HistoryResponse
            do throws(AppStoreServerAPIError) {
                first = try decode(try await send("GET", path, in: environment), "Get Transaction History")
            } catch where error.appleErrorCode == AppleErrorCodes.transactionIDNotFound {
                lastError = error
                continue
            }
            var history = AppStoreTransactionHistory(environment: environment, signedTransactions: first.signedTransactions)
            var page = first
            while page.hasMore {
                guard let revision = page.revision, !revision.isEmpty else {
                    throw AppStoreServerAPIError(
                        .malformedResponse, "Get Transaction History: a page says it has more but gives no revision")
                }
                guard history.pages < Self.maxHistoryPages else {
                    throw AppStoreServerAPIError(
                        .malformedResponse,
                        "Get Transaction History: more than \(Self.maxHistoryPages) pages for transaction \(id)")
                }
                page = try decode(
                    try await send("GET", path + "?revision=" + OutboundURL.queryEncoded(revision), in: environment),
                    "Get Transaction History")
                history.signedTransactions += page.signedTransactions
                history.pages += 1
            }
            return history
        }
        throw lastError ?? AppStoreServerAPIError(.configuration, "no App Store environment to ask")
    }

    /// One page of Get Notification History: the notifications Apple sent (or tried to) in the query's window, oldest
    /// first, and the token for the next page (nil on the last). Every page of one listing sends the same body.
    public func notificationHistory(
        _ query: AppStoreNotificationHistoryQuery, paginationToken: String?, in environment: AppStoreAPIEnvironment
    ) async throws(AppStoreServerAPIError) -> (records: [AppStoreNotificationRecord], next: String?) {
        var path = "/inApps/v1/notifications/history"
        if let paginationToken { path += "?paginationToken=" + OutboundURL.queryEncoded(paginationToken) }
        let body = try await send("POST", path, body: try query.body(), in: environment)
        let page: NotificationHistoryResponse = try decode(body, "Get Notification History")
        guard !page.hasMore || !(page.paginationToken ?? "").isEmpty else {
            throw AppStoreServerAPIError(
                .malformedResponse, "Get Notification History: a page says it has more but gives no paginationToken")
        }
        return (page.notificationHistory, page.hasMore ? page.paginationToken : nil)
    }

    /// One call: the body of a 2xx; Apple's error otherwise.
    func send(_ method: String, _ path: String, body: [UInt8] = [], in environment: AppStoreAPIEnvironment)
        async throws(AppStoreServerAPIError) -> [UInt8]
    {
        guard let base = baseURLs[environment] else {
            throw AppStoreServerAPIError(.configuration, "no \(environment.rawValue) URL")
        }
        var url = base
        url.target = path
        var headers: HTTPHeaders = [
            "Authorization": "Bearer " + (try tokens.token(now: now())), "Accept": "application/json",
        ]
        if !body.isEmpty { headers.add(name: "Content-Type", value: "application/json") }
        var response: HTTPClientResponse
        var waits = 0
        repeat {
            do throws(OutboundHTTPError) {
                response = try await http.send(method, url, headers: headers, body: body, for: .appStoreServerAPI).response
            } catch {
                throw AppStoreServerAPIError(.unreachable, "\(method) \(path) on Apple's \(environment.rawValue) host: \(error)")
            }
            guard response.status == 429, waits < Self.maxRateLimitWaits,
                let wait = Self.rateLimitWait(response.headers["retry-after"], nowMilliseconds: now() * 1000)
            else { break }
            waits += 1
            try? await Task.sleep(for: wait)
        } while true
        guard (200..<300).contains(response.status) else { throw Self.error(of: response, method, path) }
        return response.body
    }

    static let maxRateLimitWaits = 2
    static let maxRateLimitWait = Milliseconds.perMinute

    /// Apple's `Retry-After` on a 429 is the UNIX time in milliseconds when requests may resume (not HTTP's
    /// delta-seconds, which the outbound client reads): the wait until then, when it is at most a minute.
    static func rateLimitWait(_ header: String?, nowMilliseconds: Int64) -> Duration? {
        guard let header, let resume = Int64(header.trimmingCharacters(in: .whitespaces)),
            resume > 1_000_000_000_000
        else { return nil }
        let wait = max(0, resume - nowMilliseconds)
        return wait <= maxRateLimitWait ? .milliseconds(wait) : nil
    }

    /// Apple's error body (`errorCode`, `errorMessage`) when there is one; a 401 (a refused token) usually has none.
    static func error(of response: HTTPClientResponse, _ method: String, _ path: String) -> AppStoreServerAPIError {
        let apple = try? JSONReader.read(ErrorResponse.self, from: response.body)
        let code: AppStoreServerAPIError.Code = response.status == 401 ? .unauthorized : .refused
        var message = "\(method) \(path): HTTP \(response.status)"
        if let apple {
            let name = AppleErrorCodes.names[apple.errorCode].map { "\($0) (\(apple.errorCode))" } ?? "error \(apple.errorCode)"
            message += ", \(name)"
            if let said = apple.errorMessage { message += ": " + String(said.prefix(maxErrorBytes)) }
        } else if response.status == 401 {
            message += ": Apple refused the token (check the key file, key ID, issuer ID and bundle ID)"
        }
        return AppStoreServerAPIError(code, status: response.status, appleErrorCode: apple?.errorCode, message)
    }

    /// An ID as a path segment: 1-64 ASCII letters, digits, `-` or `_` (Apple's IDs are digits), never anything that
    /// could change the request.
    static func pathComponent(_ id: String, _ what: String) throws(AppStoreServerAPIError) -> String {
        guard (1...64).contains(id.utf8.count), id.utf8.allSatisfy(Self.isUnreserved) else {
            throw AppStoreServerAPIError(.configuration, "the \(what) must be 1 to 64 letters, digits, - or _")
        }
        return id
    }

    /// ASCII letters, digits, `-` and `_`.
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x2D
            || byte == 0x5F
    }

    func decode<Value: JSONReadable>(_ body: [UInt8], _ call: String) throws(AppStoreServerAPIError) -> Value {
        do {
            return try JSONReader.read(Value.self, from: body)
        } catch {
            http.answerUnreadable(.appStoreServerAPI)
            throw AppStoreServerAPIError(.malformedResponse, "\(call): Apple's answer is not the documented JSON")
        }
    }
}

/// One subscription's entry in Get All Subscription Statuses (`lastTransactions[]`).
public struct AppStoreSubscriptionStatus: Sendable, Hashable {
    /// 1 active, 2 expired, 3 billing retry, 4 billing grace period, 5 revoked.
    public var status: Int
    public var originalTransactionId: String
    public var signedTransactionInfo: String
    public var signedRenewalInfo: String?
}

/// A customer's transaction history as Get Transaction History gave it, all pages read.
public struct AppStoreTransactionHistory: Sendable, Hashable {
    /// The environment whose server knew the transaction ID.
    public var environment: AppStoreAPIEnvironment
    /// Every signed transaction (JWS), unverified, in Apple's order.
    public var signedTransactions: [String]
    public var pages = 1
}

/// What Get Notification History is asked for: Apple's window (`startDate`, `endDate`, milliseconds since 1970) and
/// an optional customer (any transaction ID of theirs) or only the notifications Apple failed to deliver (or is still
/// retrying).
public struct AppStoreNotificationHistoryQuery: Sendable, Hashable {
    public var startDate: Int64
    public var endDate: Int64
    public var transactionID: String?
    public var onlyFailures: Bool

    public init(startDate: Int64, endDate: Int64, transactionID: String? = nil, onlyFailures: Bool = false) {
        self.startDate = startDate
        self.endDate = endDate
        self.transactionID = transactionID
        self.onlyFailures = onlyFailures
    }

    func body() throws(AppStoreServerAPIError) -> [UInt8] {
        var json = #"{"startDate":\#(startDate),"endDate":\#(endDate)"#
        if let transactionID {
            json += #","transactionId":""# + (try AppStoreServerAPIClient.pathComponent(transactionID, "transaction ID")) + #"""#
        }
        if onlyFailures { json += #","onlyFailures":true"# }
        return Array((json + "}").utf8)
    }
}

/// One notification in Get Notification History: the signed payload as Apple sent it, unverified.
public struct AppStoreNotificationRecord: Sendable, Hashable {
    public var signedPayload: String
}

struct NotificationHistoryResponse {
    var notificationHistory: [AppStoreNotificationRecord]
    var hasMore: Bool
    var paginationToken: String?
}

struct HistoryResponse {
    var revision: String?
    var hasMore: Bool
    var signedTransactions: [String]
}

struct StatusResponse {
    struct Group {
        var lastTransactions: [AppStoreSubscriptionStatus]
    }

    var data: [Group]
}

struct TransactionInfoResponse {
    var signedTransactionInfo: String
}

struct ErrorResponse {
    var errorCode: Int
    var errorMessage: String?
}
