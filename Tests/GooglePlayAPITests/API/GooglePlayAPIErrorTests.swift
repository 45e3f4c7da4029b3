@testable import GooglePlayAPI
import Testing

/// Google's error answers as the caller acts on them.
@Suite struct GooglePlayAPIErrorTests {
    @Test func statusesMapToWhatTheCallerDoes() {
        let expected: [(Int, GooglePlayAPIError.Code)] = [
            (400, .invalidRequest), (401, .permissionDenied), (403, .permissionDenied), (404, .notFound), (409, .invalidRequest),
            (410, .notFound), (429, .unavailable), (500, .unavailable), (503, .unavailable), (599, .unavailable),
        ]
        for (status, code) in expected {
            let error = GooglePlayAPIError.answer(status: status, body: [], call: "purchases.products.get")
            #expect(error.code == code && error.status == status, "\(status)")
            #expect(error.message.contains("purchases.products.get") && error.message.contains("(\(status))"))
        }
    }

    @Test func googlesAPIErrorBodyIsSummarisedByMessageAndFirstReason() {
        let body = Array(#"{"error":{"code":400,"message":"Invalid Value","errors":[{"reason":"invalid"},{"reason":"second"}],"status":"INVALID_ARGUMENT"}}"#.utf8)
        #expect(GooglePlayAPIError.summary(ofErrorBody: body) == "Invalid Value (invalid)")
        #expect(GooglePlayAPIError.summary(ofErrorBody: Array(#"{"error":{"message":"Only a message"}}"#.utf8)) == "Only a message")
    }

    @Test func oauthErrorBodiesAreSummarisedByErrorAndDescription() {
        let body = Array(#"{"error":"invalid_grant","error_description":"Invalid JWT: Token must be a short-lived token (60 minutes)"}"#.utf8)
        #expect(GooglePlayAPIError.summary(ofErrorBody: body) == "invalid_grant (Invalid JWT: Token must be a short-lived token (60 minutes))")
        #expect(GooglePlayAPIError.summary(ofErrorBody: Array(#"{"error":"unsupported_grant_type"}"#.utf8)) == "unsupported_grant_type")
    }

    @Test func bodiesWithNothingReadableGiveNoSummary() {
        for body in ["", "<html>Bad Gateway</html>", "[]", #"{"message":"not where Google puts it"}"#, #"{"error":{"code":500}}"#, #"{"error":5}"#] {
            #expect(GooglePlayAPIError.summary(ofErrorBody: Array(body.utf8)) == nil, "\(body)")
        }
        #expect(!GooglePlayAPIError.answer(status: 502, body: Array("<html>".utf8), call: "x").message.contains("Google said"))
    }

    @Test func aLongMessageIsCutShort() throws {
        let long = String(repeating: "é", count: 1_000)
        let summary = try #require(GooglePlayAPIError.summary(ofErrorBody: Array(#"{"error":{"message":"\#(long)"}}"#.utf8)))
        #expect(summary.utf8.count <= 300)
        #expect(summary.hasPrefix("éé"))
    }

    @Test func errorsCompareByCode() {
        #expect(GooglePlayAPIError(.notFound, "a", status: 404) == GooglePlayAPIError(.notFound, "b"))
        #expect(GooglePlayAPIError(.notFound, "a") != GooglePlayAPIError(.unavailable, "a"))
        #expect(GooglePlayAPIError(.unavailable, "down").description == "unavailable: down")
    }
}
