import Encodings
import Foundation
import GooglePlay
import TestSupport
import Testing

/// `purchases.voidedpurchases.list` answers.
@Suite struct VoidedPurchasesTests {
    @Test func aPageDecodesItsPurchasesAndTheNextPageToken() throws {
        let list = try JSONReader.read(VoidedPurchaseList.self, from: Array(RepositoryFiles.google("voided-purchases.json")))
        #expect(list.tokenPagination?.nextPageToken == "page-2")
        let voided = try #require(list.voidedPurchases)
        #expect(voided.map(\.purchaseToken) == ["token-a", "token-b", "token-c"])
        #expect(voided[0].orderId == "GPA.1111-2222-3333-44444..3")
        #expect(GooglePlayTime.milliseconds(decimal: voided[0].voidedTimeMillis) == 1_781_500_000_000)
        #expect(voided[0].voidedSource == 2 && voided[0].voidedQuantity == 1)
        #expect(voided[1].voidedQuantity == nil)
        #expect(voided[2].orderId == nil && voided[2].purchaseTimeMillis == nil)
    }

    @Test func noVoidedPurchaseAtAllIsAnEmptyObject() throws {
        let list = try JSONReader.read(VoidedPurchaseList.self, from: Array("{}".utf8))
        #expect(list.voidedPurchases == nil && list.tokenPagination == nil)
    }

    @Test func reasonsAreNamedAsGoogleNamesThem() throws {
        let names = try (0...8).map { reason in
            try JSONReader.read(VoidedPurchase.self, from: Array(#"{"voidedReason": \#(reason)}"#.utf8)).reasonName
        }
        #expect(names == [
            "VOIDED_OTHER", "VOIDED_REMORSE", "VOIDED_NOT_RECEIVED", "VOIDED_DEFECTIVE", "VOIDED_ACCIDENTAL_PURCHASE",
            "VOIDED_FRAUD", "VOIDED_FRIENDLY_FRAUD", "VOIDED_CHARGEBACK", "VOIDED_UNACKNOWLEDGED_PURCHASE",
        ])
        let list = try JSONReader.read(VoidedPurchaseList.self, from: Array(RepositoryFiles.google("voided-purchases.json")))
        // A reason this build does not know, or none, is just voided.
        #expect(list.voidedPurchases?[2].reasonName == "VOIDED")
        #expect(try JSONReader.read(VoidedPurchase.self, from: Array("{}".utf8)).reasonName == "VOIDED")
        #expect(try JSONReader.read(VoidedPurchase.self, from: Array(#"{"voidedReason": -1}"#.utf8)).reasonName == "VOIDED")
    }
}
