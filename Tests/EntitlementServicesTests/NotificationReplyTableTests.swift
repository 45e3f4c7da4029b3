import EntitlementDomain
@testable import EntitlementServices
import Foundation
import RPCCore
import TestSupport
import Testing

/// The one mapping of what happened to the reply every store gets, and README's "What each store is answered" table of
/// it; the interop tests (test_notification_replies.py) prove each row through the server at each store.
@Suite struct NotificationReplyTableTests {
    /// README's table: each row's Code cell (without backticks; empty for the outcomes that are not errors) and Reply
    /// cell, by the row's first cell.
    static func readmeRows() throws -> [(outcome: String, code: String, reply: String)] {
        let readme = try String(contentsOf: RepositoryFiles.url("README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "## What each store is answered").dropFirst().first)
        var rows: [(String, String, String)] = []
        var inTable = false
        for line in section.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line.hasPrefix("| Outcome | Code | Reply |") {
                inTable = true
                continue
            }
            guard inTable else { continue }
            guard line.hasPrefix("|") else { break }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 4, !cells[0].hasPrefix("---") else { continue }
            rows.append((cells[0], cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`")), cells[2]))
        }
        return rows
    }

    @Test func readmeGivesEachCodeTheStatusTheEndpointsAnswer() throws {
        let rows = try Self.readmeRows()
        let coded = rows.filter { !$0.code.isEmpty }
        #expect(coded.map(\.code).sorted() == DomainError.Code.allCases.map(\.rawValue).sorted(), "one row per code")
        for row in coded {
            let code = try #require(DomainError.Code(rawValue: row.code), "README's code \(row.code)")
            let reply = NotificationReply(DomainError(code, "m"))
            #expect(row.reply.hasPrefix(String(reply.status)), "README's row for \(row.code): \(row.reply)")
        }
    }

    @Test func readmeAcknowledgesWhatWasDoneAndRefusesWhatIsTooLarge() throws {
        let rows = try Self.readmeRows()
        func reply(_ prefix: String) throws -> String {
            try #require(rows.first { $0.outcome.hasPrefix(prefix) }?.reply, "README's row \(prefix)")
        }
        #expect(try reply("Applied") == String(NotificationReply(.applied(appUserID: "u", changed: true), reason: "r").status))
        #expect(try reply("Applied") == String(NotificationReply(.applied(appUserID: "u", changed: false), reason: "r").status))
        #expect(try reply("Recorded") == String(NotificationReply(.recorded, reason: "r").status))
        #expect(try reply("Duplicate") == String(NotificationReply(.duplicate, reason: "r").status))
        #expect(try reply("The body is over") == String(NotificationReply.tooLarge(limit: 1).status))
    }

    /// A store delivers again after any reply but a 2xx: a 5xx for what may pass later, a 2xx only for what has nothing
    /// left to do, a 4xx for the rest.
    @Test func aStoreIsToldToDeliverAgainExactlyWhenItMayPassLater() {
        for code in DomainError.Code.allCases {
            let status = NotificationReply.status(for: code)
            #expect((status >= 500) == code.mayPassLater, "\(code)")
            #expect((200..<300).contains(status) == (code == .notApplicable), "\(code)")
        }
    }

    /// The gRPC statuses clients saw before the codes said what happened, per code.
    @Test func eachCodeKeepsTheGRPCStatusClientsSee() {
        let expected: [DomainError.Code: RPCError.Code] = [
            .invalidRequest: .invalidArgument, .malformedPayload: .invalidArgument, .verificationFailed: .invalidArgument,
            .notApplicable: .invalidArgument, .unauthenticated: .unauthenticated, .permissionDenied: .permissionDenied,
            .notFound: .notFound, .alreadyExists: .alreadyExists, .wrongState: .failedPrecondition,
            .unmappedProduct: .failedPrecondition, .tenantMisconfigured: .failedPrecondition,
            .serverMisconfigured: .failedPrecondition, .resourceExhausted: .resourceExhausted,
            .credentialsUnusable: .unavailable, .storeUnavailable: .unavailable, .storageUnavailable: .unavailable,
            .storageFailed: .internal, .internalError: .internal,
        ]
        #expect(Set(expected.keys) == Set(DomainError.Code.allCases))
        for (code, status) in expected {
            #expect(DomainError(code, "m").rpcError.code == status, "\(code)")
        }
    }

    @Test func anErrorKeepsWhereItWasRaisedForTheLogOnly() {
        let error = DomainError.unmappedProduct("Product 'x' maps to no entitlement.")
        #expect(error.location.hasPrefix("EntitlementServicesTests/NotificationReplyTableTests.swift:"))
        #expect(error == DomainError.unmappedProduct("another message"), "compared by code")
        let reply = NotificationReply(error)
        #expect(reply.status == 503 && reply.message == error.message && reply.raisedAt == error.location)
        #expect(!error.rpcError.message.contains("NotificationReplyTableTests"))
    }
}
