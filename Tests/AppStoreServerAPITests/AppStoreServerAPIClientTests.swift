import AppStoreServerAPI
import Foundation
import OutboundHTTP
import Synchronization
import TestSupport
import Testing

/// The client against a scripted server standing for each of Apple's hosts.
@Suite struct AppStoreServerAPIClientTests {
    static func client(production: ScriptedHTTPServer, sandbox: ScriptedHTTPServer) throws -> AppStoreServerAPIClient {
        let (credentials, _) = try AppStoreAPITokensTests.credentials()
        let http = try OutboundHTTPClient(
            configuration: .init(attemptTimeout: .seconds(5), retry: RetryPolicy(maxAttempts: 2, initialBackoff: .milliseconds(10))))
        return try AppStoreServerAPIClient(
            credentials: credentials, http: http, productionURL: production.baseURL, sandboxURL: sandbox.baseURL)
    }

    static let json = [("Content-Type", "application/json")]

    @Test func transactionInfoIsAskedOfProductionFirstThenSandbox() async throws {
        let production = try ScriptedHTTPServer { _ in
            .status(404, #"{"errorCode":4040010,"errorMessage":"Transaction id not found."}"#, headers: Self.json)
        }
        let sandbox = try ScriptedHTTPServer { _ in .status(200, #"{"signedTransactionInfo":"a.b.c"}"#, headers: Self.json) }
        defer { production.stop(); sandbox.stop() }
        let client = try Self.client(production: production, sandbox: sandbox)
        let found = try await client.transactionInfo("2000000123", in: [.production, .sandbox])
        #expect(found.signedTransactionInfo == "a.b.c" && found.environment == .sandbox)
        let asked = production.requests + sandbox.requests
        #expect(asked.map(\.target) == ["/inApps/v1/transactions/2000000123", "/inApps/v1/transactions/2000000123"])
        #expect(asked.allSatisfy { $0.method == "GET" && $0.headers["authorization"]?.hasPrefix("Bearer ey") == true })
        // Only production, when the tenant accepts no sandbox: Apple's error, by name.
        await #expect {
            try await client.transactionInfo("2000000123", in: [.production])
        } throws: { error in
            let error = error as? AppStoreServerAPIError
            return error?.appleErrorName == "TransactionIdNotFoundError" && error?.code == .refused
                && error?.description.contains("TransactionIdNotFoundError (4040010)") == true
        }
    }

    @Test func subscriptionStatusesAreEveryGroupsLastTransactions() async throws {
        let body = """
            {"environment":"Sandbox","bundleId":"com.example.app","data":[
             {"subscriptionGroupIdentifier":"g1","lastTransactions":[
              {"status":1,"originalTransactionId":"1000","signedTransactionInfo":"t.1","signedRenewalInfo":"r.1"}]},
             {"subscriptionGroupIdentifier":"g2","lastTransactions":[
              {"status":4,"originalTransactionId":"2000","signedTransactionInfo":"t.2"}]}]}
            """
        let sandbox = try ScriptedHTTPServer { _ in .status(200, body, headers: Self.json) }
        defer { sandbox.stop() }
        let client = try Self.client(production: sandbox, sandbox: sandbox)
        let statuses = try await client.subscriptionStatuses("1001", in: .sandbox)
        #expect(statuses.map(\.originalTransactionId) == ["1000", "2000"])
        #expect(statuses.map(\.status) == [1, 4] && statuses[1].signedRenewalInfo == nil)
        #expect(sandbox.requests.map(\.target) == ["/inApps/v1/subscriptions/1001"])
    }

    @Test func theHistoryIsReadPageByPageWithEachRevisionEncoded() async throws {
        let production = try ScriptedHTTPServer { _ in
            .status(404, #"{"errorCode":4040010,"errorMessage":"Transaction id not found."}"#, headers: Self.json)
        }
        let sandbox = try ScriptedHTTPServer { request in
            switch request.target {
            case "/inApps/v2/history/1001":
                .status(200, #"{"revision":"r+1/=","hasMore":true,"signedTransactions":["t.1","t.2"]}"#, headers: Self.json)
            case "/inApps/v2/history/1001?revision=r%2B1%2F%3D":
                .status(200, #"{"revision":"r2","hasMore":false,"signedTransactions":["t.3"]}"#, headers: Self.json)
            default:
                .status(400, #"{"errorCode":4000005,"errorMessage":"Invalid request revision."}"#, headers: Self.json)
            }
        }
        defer { production.stop(); sandbox.stop() }
        let client = try Self.client(production: production, sandbox: sandbox)
        let history = try await client.transactionHistory("1001", in: [.production, .sandbox])
        #expect(history.environment == .sandbox && history.pages == 2)
        #expect(history.signedTransactions == ["t.1", "t.2", "t.3"])
        #expect(production.requests.count == 1 && sandbox.requests.count == 2)
    }

    @Test func aPageSayingItHasMoreWithoutARevisionIsMalformed() async throws {
        let sandbox = try ScriptedHTTPServer { _ in
            .status(200, #"{"hasMore":true,"signedTransactions":["t.1"]}"#, headers: Self.json)
        }
        defer { sandbox.stop() }
        let client = try Self.client(production: sandbox, sandbox: sandbox)
        await #expect {
            try await client.transactionHistory("1001", in: [.sandbox])
        } throws: { error in
            (error as? AppStoreServerAPIError)?.code == .malformedResponse
        }
        #expect(sandbox.requests.count == 1)
    }

    @Test func aRefusedTokenIsUnauthorizedAndNotTriedInSandbox() async throws {
        let production = try ScriptedHTTPServer { _ in .status(401) }
        let sandbox = try ScriptedHTTPServer { _ in .status(200, #"{"signedTransactionInfo":"x"}"#, headers: Self.json) }
        defer { production.stop(); sandbox.stop() }
        let client = try Self.client(production: production, sandbox: sandbox)
        await #expect {
            try await client.transactionInfo("1", in: [.production, .sandbox])
        } throws: { error in
            (error as? AppStoreServerAPIError)?.code == .unauthorized
        }
        #expect(sandbox.requests.isEmpty)
    }

    @Test func aPassingFailureIsRetriedAndABrokenAnswerIsReported() async throws {
        let calls = ScriptedCounter()
        let production = try ScriptedHTTPServer { _ in
            calls.next() == 0
                ? .status(503, #"{"errorCode":5000001,"errorMessage":"An unknown retryable error occurred."}"#, headers: Self.json)
                : .status(200, #"{"unexpected":true}"#, headers: Self.json)
        }
        let sandbox = try ScriptedHTTPServer { _ in .status(500) }
        defer { production.stop(); sandbox.stop() }
        let client = try Self.client(production: production, sandbox: sandbox)
        await #expect {
            try await client.transactionInfo("1", in: [.production])
        } throws: { error in
            (error as? AppStoreServerAPIError)?.code == .malformedResponse
        }
        #expect(production.requests.count == 2)
    }

    @Test(arguments: ["", "12/34", "../x", "1?a=b", String(repeating: "1", count: 65), "é1"])
    func anIDThatIsNotOneIsRefusedBeforeAnyCall(id: String) async throws {
        let production = try ScriptedHTTPServer { _ in .status(200) }
        defer { production.stop() }
        let client = try Self.client(production: production, sandbox: production)
        await #expect(throws: AppStoreServerAPIError.self) { try await client.transactionInfo(id, in: [.production]) }
        #expect(production.requests.isEmpty)
    }

    @Test func urlsMustBeOrigins() throws {
        let (credentials, _) = try AppStoreAPITokensTests.credentials()
        let http = try OutboundHTTPClient()
        #expect(throws: AppStoreServerAPIError.self) {
            try AppStoreServerAPIClient(credentials: credentials, http: http, productionURL: "https://example.com/api")
        }
        #expect(throws: AppStoreServerAPIError.self) {
            try AppStoreServerAPIClient(credentials: credentials, http: http, sandboxURL: "ftp://example.com")
        }
    }
}

/// Counts calls from the scripted server's threads.
final class ScriptedCounter: Sendable {
    private let count = Mutex(0)

    func next() -> Int {
        count.withLock { value in
            defer { value += 1 }
            return value
        }
    }
}
