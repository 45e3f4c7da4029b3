import Foundation
import HTTP1
import Synchronization
import TestSupport

/// Apple's App Store Server API, Google's token endpoint and Play Developer API, Stripe's API and the tenant's webhook
/// endpoints, on one loopback port of this process, each answering at once: the documented answer made from the
/// current input's bytes (dates at the edges, signed by the fixture's chain), or the failure the input picks (a
/// status with `Retry-After` at an edge, bytes that are not JSON, a closed connection). Nothing reaches the network.
public final class FakeStores: Sendable {
    /// How the fakes answer while one input runs.
    public struct Script: Sendable {
        public enum Failure: Sendable {
            case status(Int, retryAfter: String?)
            case garbage([UInt8])
            case close
        }

        /// nil: the documented answer.
        public var failure: Failure?
        /// What the documented answers are made from.
        public var bytes: [UInt8]

        public static let documented = Script(failure: nil, bytes: [])

        /// Mostly the documented answer; a failure one time in four.
        public init(_ input: inout FuzzInput) {
            switch input.choose(16) {
            case 12: failure = .status(input.pick([429, 503, 500, 502]), retryAfter: input.pick(Self.retryAfters))
            case 13: failure = .status(input.pick([400, 401, 403, 404, 410, 501]), retryAfter: nil)
            case 14: failure = .garbage(input.bytes(upTo: 64))
            case 15: failure = .close
            default: failure = nil
            }
            bytes = input.bytes(upTo: 96)
        }

        init(failure: Failure?, bytes: [UInt8]) {
            self.failure = failure
            self.bytes = bytes
        }

        /// HTTP's delta-seconds and dates, and Apple's milliseconds since 1970, at and past their edges.
        static let retryAfters: [String?] = [
            nil, "0", "1", "-1", "9223372036854775807", "9223372036854775808", "18446744073709551616", "99999999999999999999",
            "Fri, 31 Dec 9999 23:59:59 GMT", "Thu, 01 Jan 1970 00:00:00 GMT", "Sun, 06 Nov 1994 08:49:37 GMT", "", " 1 ",
            "1e3", "0x10", String((Extremes.nowSeconds + 1) * 1000), String(Int64.max / 1000 + 1), "-9223372036854775808",
        ]
    }

    public let payloads: StorePayloads
    private let server: ScriptedHTTPServer
    private let script = Mutex(Script.documented)
    /// Stripe objects the HTTP target's events carried, by ID, for Stripe's API to answer with (a few).
    private let stripeObjects = Mutex<[String: [UInt8]]>([:])
    /// Signed TEST notifications by the token Request a Test Notification gave (a few).
    private let testNotifications = Mutex<[String: String]>([:])
    /// Where a TEST notification is delivered: the fixture's HTTP routes, once they exist.
    private let notificationRoutes = Mutex<HTTPRouter?>(nil)

    public init(payloads: StorePayloads) throws {
        self.payloads = payloads
        let fakes = Mutex<FakeStores?>(nil)
        server = try ScriptedHTTPServer(recordsRequests: false) { request in
            guard let self = fakes.withLock({ $0 }) else { return .close }
            return self.answer(request)
        }
        fakes.withLock { $0 = self }
    }

    public var baseURL: String { server.baseURL }
    public var googleTokenURI: String { server.baseURL + "/token" }
    public var playBaseURL: String { server.baseURL + ScriptedGoogle.apiPath }
    public func webhookURL(_ id: String) -> String { server.baseURL + "/hook/" + id }

    /// Answers `script` until the next call.
    public func answer(with script: Script) {
        self.script.withLock { $0 = script }
    }

    public func deliverTestNotifications(to routes: HTTPRouter) {
        notificationRoutes.withLock { $0 = routes }
    }

    /// Stripe's API answers `object` for its ID from now on.
    public func rememberStripeObject(id: String, _ object: [String: Any]) {
        let body = payloads.json(object)
        stripeObjects.withLock { objects in
            if objects.count >= 64 { objects.removeAll() }
            objects[id] = body
        }
    }

    private func answer(_ request: ScriptedHTTPServer.Request) -> ScriptedHTTPServer.Reply {
        let script = self.script.withLock { $0 }
        var input = FuzzInput(script.bytes)
        let path = String(request.target.split(separator: "?", maxSplits: 1).first ?? "")
        // A webhook endpoint the tenant lists as gone answers as a removed one does.
        if path == "/hook/gone" { return .status(410) }
        switch script.failure {
        case .status(let status, let retryAfter)?:
            return .status(status, "{}", headers: retryAfter.map { [("Retry-After", $0)] } ?? [])
        case .garbage(let bytes)?:
            return .bytes(Array("HTTP/1.1 200 OK\r\nContent-Length: \(bytes.count)\r\n\r\n".utf8) + bytes)
        case .close?:
            return .close
        case nil:
            break
        }
        if path == "/token" { return ScriptedGoogle.granted("ya29.fuzz", expiresIn: input.oneIn(4) ? Int(input.int64()) : 3599) }
        if path.hasPrefix("/hook/") { return .status(200) }
        if path.hasPrefix(ScriptedGoogle.apiPath) { return play(path, &input) }
        if path.hasPrefix("/inApps/") {
            // Like Apple, the page a token or revision asks for is the last: a fake that always had more would have
            // the server read its page cap (100,000 notification pages) of the same page.
            return apple(request.method, path, nextPage: !request.target.contains("?"), &input)
        }
        if path.hasPrefix("/v1/") { return stripe(path) }
        return .status(404)
    }

    private func json(_ object: Any) -> ScriptedHTTPServer.Reply {
        .status(200, String(decoding: payloads.json(object), as: UTF8.self), headers: [("Content-Type", "application/json")])
    }

    // MARK: Google Play

    private func play(_ path: String, _ input: inout FuzzInput) -> ScriptedHTTPServer.Reply {
        if path.hasSuffix(":acknowledge") { return json([String: Any]()) }
        if path.hasSuffix("/purchases/voidedpurchases") {
            return json(["voidedPurchases": [[
                "purchaseToken": input.string(FuzzVocabulary.playTokens), "orderId": "GPA.1",
                "voidedTimeMillis": String(input.unixMilliseconds()), "voidedReason": Int64(input.int32()),
                "voidedSource": Int64(input.int32()), "kind": "androidpublisher#voidedPurchase",
            ]]])
        }
        if path.contains("/purchases/subscriptionsv2/tokens/") { return json(payloads.subscription(&input)) }
        if path.contains("/purchases/products/") { return json(payloads.product(&input)) }
        return .status(404)
    }

    // MARK: Apple

    /// `nextPage`: whether a listing may say it has more.
    private func apple(_ method: String, _ path: String, nextPage: Bool, _ input: inout FuzzInput) -> ScriptedHTTPServer.Reply {
        let id = String(path.split(separator: "/").last ?? "")
        switch (method, path) {
        case ("GET", _) where path.hasPrefix("/inApps/v1/transactions/"):
            return json(["signedTransactionInfo": payloads.signedTransaction(&input, originalTransactionID: id)])
        case ("GET", _) where path.hasPrefix("/inApps/v1/subscriptions/"):
            let signed = payloads.signedTransaction(&input, originalTransactionID: id)
            return json(["data": [["subscriptionGroupIdentifier": "local.group", "lastTransactions": [[
                "status": Int64(input.int32()), "originalTransactionId": id, "signedTransactionInfo": signed,
                "signedRenewalInfo": payloads.signedRenewalInfo(&input, originalTransactionID: id),
            ]]]]])
        case ("GET", _) where path.hasPrefix("/inApps/v2/history/"):
            let count = input.choose(4)
            return json([
                "signedTransactions": (0..<count).map { _ in payloads.signedTransaction(&input, originalTransactionID: id) },
                "hasMore": nextPage && input.oneIn(4), "revision": input.string(["r1", ""]), "bundleId": StorePayloads.bundleID,
            ])
        case ("POST", "/inApps/v1/notifications/history"):
            let count = input.choose(4)
            return json([
                "notificationHistory": (0..<count).map { _ in
                    ["signedPayload": payloads.sign(payloads.notification(&input))]
                },
                "hasMore": nextPage && input.oneIn(4), "paginationToken": input.string(["p1", ""]),
            ])
        case ("GET", _) where path.hasPrefix("/inApps/v1/lookup/"):
            return json([
                "status": Int64(input.oneIn(4) ? 1 : 0),
                "signedTransactions": (0..<input.choose(3)).map { _ in payloads.signedTransaction(&input) },
            ])
        case ("PUT", _) where path.hasPrefix("/inApps/v1/subscriptions/extend/"):
            return json([
                "originalTransactionId": id, "webOrderLineItemId": String(input.uint64()), "success": !input.oneIn(4),
                "effectiveDate": input.unixMilliseconds(),
            ])
        case ("PUT", _) where path.hasPrefix("/inApps/v2/transactions/consumption/"):
            return .status(202)
        case ("POST", "/inApps/v1/notifications/test"):
            return json(["testNotificationToken": requestTestNotification()])
        case ("GET", _) where path.hasPrefix("/inApps/v1/notifications/test/"):
            var answer: [String: Any] = [
                "sendAttempts": [["attemptDate": input.unixMilliseconds(), "sendAttemptResult": input.pick(["SUCCESS", "TIMED_OUT"])]]
            ]
            answer["signedPayload"] = testNotifications.withLock { $0[id] }
            return json(answer)
        default:
            return .status(404, #"{"errorCode":4040010,"errorMessage":"Not found."}"#)
        }
    }

    /// Apple's token for a new TEST notification, which reaches the fixture's notification route before the token is
    /// answered (Apple sends it at once), so that `CheckAppStoreSetup` sees it arrive.
    private func requestTestNotification() -> String {
        let token = UUID().uuidString.lowercased()
        var input = FuzzInput([])
        let signed = payloads.sign(payloads.notification(&input, type: "TEST"))
        testNotifications.withLock { notifications in
            if notifications.count >= 16 { notifications.removeAll() }
            notifications[token] = signed
        }
        if let routes = notificationRoutes.withLock({ $0 }) {
            let request = HTTPRequest(
                method: "POST", path: "/v1/apple/notifications/\(FuzzVocabulary.tenantID)",
                body: payloads.notificationBody(signed))
            runBounded("delivering a TEST notification", within: .seconds(10)) { _ = await routes.respond(to: request) }
        }
        return token
    }

    // MARK: Stripe

    private func stripe(_ path: String) -> ScriptedHTTPServer.Reply {
        let id = String(path.split(separator: "/").last ?? "")
        if let body = stripeObjects.withLock({ $0[id] }) {
            return .status(200, String(decoding: body, as: UTF8.self), headers: [("Content-Type", "application/json")])
        }
        return .status(
            404, #"{"error":{"type":"invalid_request_error","code":"resource_missing","message":"No such object"}}"#)
    }
}
