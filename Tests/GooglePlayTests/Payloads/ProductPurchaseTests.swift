import Encodings
import Foundation
import GooglePlay
import TestSupport
import Testing

/// `purchases.products.get` answers: Google's 64-bit numbers as strings, its small enums as numbers.
@Suite struct ProductPurchaseTests {
    @Test func aLicenseTestersPurchaseDecodesAsGoogleSpellsIt() throws {
        let purchase = try JSONReader.read(ProductPurchase.self, from: Array(RepositoryFiles.google("product-purchase.json")))
        #expect(purchase.kind == "androidpublisher#productPurchase")
        #expect(GooglePlayTime.milliseconds(decimal: purchase.purchaseTimeMillis) == 1_781_512_345_678)
        #expect(purchase.state == .purchased && purchase.consumptionState == 0)
        #expect(purchase.isTestPurchase && !purchase.isAcknowledged)
        #expect(purchase.orderId == "GPA.3398-1234-5678-90123" && purchase.productId == "lifetime")
        #expect(purchase.quantity == 1 && purchase.refundableQuantity == 1 && purchase.regionCode == "US")
        #expect(purchase.obfuscatedExternalAccountId == "0f8fad5b-d9cb-469f-a165-70867728950e")
        #expect(purchase.purchaseToken == nil)
    }

    @Test func purchaseStatesByNumber() throws {
        func decoded(_ json: String) throws -> ProductPurchase {
            try JSONReader.read(ProductPurchase.self, from: Array(json.utf8))
        }
        #expect(try decoded(#"{"purchaseState": 1}"#).state == .canceled)
        #expect(try decoded(#"{"purchaseState": 2}"#).state == .pending)
        #expect(try decoded(#"{"purchaseState": 7}"#).state == nil)
        #expect(try decoded(#"{"purchaseState": 7}"#).purchaseState == 7)
        #expect(try decoded("{}").state == nil)
    }

    @Test func onlyPurchaseTypeZeroIsATestPurchaseAndOnlyStateOneIsAcknowledged() throws {
        func decoded(_ json: String) throws -> ProductPurchase {
            try JSONReader.read(ProductPurchase.self, from: Array(json.utf8))
        }
        // Absent: a normal purchase (Google sends purchaseType only outside the normal flow).
        #expect(try !decoded("{}").isTestPurchase)
        #expect(try !decoded(#"{"purchaseType": 1}"#).isTestPurchase)
        #expect(try !decoded(#"{"purchaseType": 2}"#).isTestPurchase)
        #expect(try decoded(#"{"acknowledgementState": 1}"#).isAcknowledged)
        #expect(try !decoded("{}").isAcknowledged)
    }
}
