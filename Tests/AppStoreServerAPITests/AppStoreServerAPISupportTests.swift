@testable import AppStoreServerAPI
import CivilCalendar
import Foundation
import TestSupport
import Testing

/// Notification history, order lookup, renewal extension, consumption and test notifications against a scripted host:
/// what is sent, and how Apple's answers read.
@Suite struct AppStoreServerAPISupportTests {
    static let json = AppStoreServerAPIClientTests.json

    static func client(_ host: ScriptedHTTPServer) throws -> AppStoreServerAPIClient {
        try AppStoreServerAPIClientTests.client(production: host, sandbox: host)
    }

    static func object(_ body: [UInt8]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
    }

    @Test func notificationHistoryPagesResendTheSameBodyWithTheEncodedToken() async throws {
        let host = try ScriptedHTTPServer { request in
            request.target.contains("paginationToken=")
                ? .status(200, #"{"notificationHistory":[{"signedPayload":"n.3"}],"hasMore":false}"#, headers: Self.json)
                : .status(
                    200, #"{"notificationHistory":[{"signedPayload":"n.1"},{"signedPayload":"n.2"}],"hasMore":true,"paginationToken":"a b+"}"#,
                    headers: Self.json)
        }
        defer { host.stop() }
        let client = try Self.client(host)
        let query = AppStoreNotificationHistoryQuery(startDate: 1_000, endDate: 2_000, transactionID: "42", onlyFailures: true)
        let first = try await client.notificationHistory(query, paginationToken: nil, in: .sandbox)
        #expect(first.records.map(\.signedPayload) == ["n.1", "n.2"] && first.next == "a b+")
        let second = try await client.notificationHistory(query, paginationToken: first.next, in: .sandbox)
        #expect(second.records.map(\.signedPayload) == ["n.3"] && second.next == nil)
        let sent = host.requests
        #expect(sent.map(\.target) == [
            "/inApps/v1/notifications/history", "/inApps/v1/notifications/history?paginationToken=a%20b%2B",
        ])
        #expect(sent.allSatisfy { $0.method == "POST" && $0.body == sent[0].body })
        let body = try Self.object(sent[0].body)
        #expect(body["startDate"] as? Int == 1_000 && body["endDate"] as? Int == 2_000)
        #expect(body["transactionId"] as? String == "42" && body["onlyFailures"] as? Bool == true)
    }

    @Test func anOrderApplesSaysIsInvalidIsNilAndAKnownOneItsTransactions() async throws {
        let host = try ScriptedHTTPServer { request in
            request.target.hasSuffix("/KNOWN1")
                ? .status(200, #"{"status":0,"signedTransactions":["t.1","t.2"]}"#, headers: Self.json)
                : .status(200, #"{"status":1}"#, headers: Self.json)
        }
        defer { host.stop() }
        let client = try Self.client(host)
        #expect(try await client.lookUpOrder("KNOWN1") == ["t.1", "t.2"])
        #expect(try await client.lookUpOrder("OTHER2") == nil)
        await #expect(throws: AppStoreServerAPIError.self) { try await client.lookUpOrder("../etc") }
        #expect(host.requests.map(\.target) == ["/inApps/v1/lookup/KNOWN1", "/inApps/v1/lookup/OTHER2"])
    }

    @Test func anExtensionSendsApplesFieldsAndSuccessFalseIsAFailure() async throws {
        let answers = ScriptedCounter()
        let host = try ScriptedHTTPServer { _ in
            answers.next() == 0
                ? .status(
                    200, #"{"originalTransactionId":"1000","webOrderLineItemId":"9","success":true,"effectiveDate":1800000000000}"#,
                    headers: Self.json)
                : .status(200, #"{"originalTransactionId":"1000","success":false}"#, headers: Self.json)
        }
        defer { host.stop() }
        let client = try Self.client(host)
        let extended = try await client.extendRenewalDate(
            originalTransactionID: "1000", days: 7, reasonCode: 3, requestIdentifier: "req-1", in: .sandbox)
        #expect(extended.effectiveDate == 1_800_000_000_000 && extended.webOrderLineItemId == "9")
        let request = try #require(host.requests.first)
        #expect(request.method == "PUT" && request.target == "/inApps/v1/subscriptions/extend/1000")
        let body = try Self.object(request.body)
        #expect(body["extendByDays"] as? Int == 7 && body["extendReasonCode"] as? Int == 3)
        #expect(body["requestIdentifier"] as? String == "req-1")
        await #expect {
            try await client.extendRenewalDate(
                originalTransactionID: "1000", days: 7, reasonCode: 3, requestIdentifier: "req-2", in: .sandbox)
        } throws: { error in
            (error as? AppStoreServerAPIError)?.code == .refused
        }
    }

    @Test func consumptionAndTestNotificationsUseApplesPathsAndFields() async throws {
        let host = try ScriptedHTTPServer { request in
            switch (request.method, request.target) {
            case ("PUT", _): .status(202)
            case ("POST", _): .status(200, #"{"testNotificationToken":"abc_123"}"#, headers: Self.json)
            default:
                .status(
                    200, #"{"signedPayload":"s.p","sendAttempts":[{"attemptDate":5,"sendAttemptResult":"SUCCESS"}]}"#,
                    headers: Self.json)
            }
        }
        defer { host.stop() }
        let client = try Self.client(host)
        try await client.sendConsumption(
            AppStoreConsumption(
                customerConsented: true, sampleContentProvided: false, deliveryStatus: "DELIVERED",
                consumptionPercentage: nil, refundPreference: "DECLINE"),
            transactionID: "77", in: .production)
        #expect(try await client.requestTestNotification(in: .sandbox) == "abc_123")
        let status = try await client.testNotificationStatus("abc_123", in: .sandbox)
        #expect(status.signedPayload == "s.p" && status.sendAttempts?.first?.sendAttemptResult == "SUCCESS")
        let sent = host.requests
        #expect(sent.map(\.target) == [
            "/inApps/v2/transactions/consumption/77", "/inApps/v1/notifications/test",
            "/inApps/v1/notifications/test/abc_123",
        ])
        let consumption = try Self.object(sent[0].body)
        #expect(consumption["customerConsented"] as? Bool == true && consumption["deliveryStatus"] as? String == "DELIVERED")
        #expect(consumption["refundPreference"] as? String == "DECLINE" && consumption["consumptionPercentage"] == nil)
    }

    @Test func applesRetryAfterIsAUnixTimeInMillisecondsAndIsWaitedFor() async throws {
        let answers = ScriptedCounter()
        let resume = Int64(Date().timeIntervalSince1970 * 1000) + 200
        let host = try ScriptedHTTPServer { _ in
            answers.next() == 0
                ? .status(
                    429, #"{"errorCode":4290000,"errorMessage":"Rate limit exceeded."}"#,
                    headers: Self.json + [("Retry-After", String(resume))])
                : .status(200, #"{"testNotificationToken":"t_1"}"#, headers: Self.json)
        }
        defer { host.stop() }
        #expect(try await Self.client(host).requestTestNotification(in: .sandbox) == "t_1")
        #expect(host.requests.count == 2)
        // Beyond a minute, or not Apple's form: not waited for here.
        #expect(AppStoreServerAPIClient.rateLimitWait(String(resume + 2 * Milliseconds.perMinute), nowMilliseconds: resume) == nil)
        #expect(AppStoreServerAPIClient.rateLimitWait("30", nowMilliseconds: resume) == nil)
        #expect(AppStoreServerAPIClient.rateLimitWait(String(resume - 5), nowMilliseconds: resume) == .zero)
        // Int64's extremes and past them: refused without overflow.
        for header in [String(Int64.max), String(Int64.min), "99999999999999999999", "-1"] {
            #expect(AppStoreServerAPIClient.rateLimitWait(header, nowMilliseconds: resume) == nil, "\(header)")
        }
    }
}
