import EntitlementDomain
import TenantConfiguration
import Testing

/// The `commission` object of a tenant configuration (``Commissions``).
@Suite struct TenantCommissionConfigTests {
    static let publicHash = APIKey.hashString("pk_test_public")!

    /// A document whose line 4 is `"commission": <commission>`.
    static func document(_ commission: String) -> String {
        "{\n\"tenants\": [\n{\n\"commission\": \(commission),\n\"id\": \"demo\",\n\"public_keys\": [\"\(publicHash)\"]\n}\n]\n}\n"
    }

    static func commissions(_ commission: String) throws -> Commissions {
        let directory = try TenantConfigLoader.parse(Array(document(commission).utf8), file: "tenants.json", directory: "/")
        return try #require(directory.tenant(id: "demo")).commissions
    }

    @Test func absentMeansEachStoresDefaults() throws {
        let text = "{\"tenants\": [{\"id\": \"a\", \"public_keys\": [\"\(Self.publicHash)\"]}]}"
        let directory = try TenantConfigLoader.parse(Array(text.utf8), file: "tenants.json", directory: "/")
        #expect(try #require(directory.tenant(id: "a")).commissions == .defaults)
    }

    @Test func aStoreGivenHasExactlyTheRatesGivenAndTheOthersKeepTheirDefaults() throws {
        let read = try Self.commissions(
            """
            {"_comment": "Small Business Program", "app_store": {"percent": 15, "products": {"com.example.coins": 30}},
             "stripe": {"percent": 1.5, "after_first_year_percent": 1.25}}
            """)
        #expect(read.appStore == StoreCommission(
            rate: CommissionRate(thousandths: 15_000), products: ["com.example.coins": CommissionRate(thousandths: 30_000)]))
        #expect(read.stripe == StoreCommission(
            rate: CommissionRate(thousandths: 1_500), afterFirstYear: CommissionRate(thousandths: 1_250)))
        #expect(read.playStore == Commissions.defaults.playStore)
    }

    @Test(arguments: [
        ("{\"app_store\": {\"percent\": 130}}", "tenants[0].commission.app_store.percent", "expected a percent"),
        ("{\"app_store\": {\"percent\": \"30\"}}", "tenants[0].commission.app_store.percent", "expected a number"),
        ("{\"app_store\": {}}", "tenants[0].commission.app_store", "missing \"percent\""),
        ("{\"play\": {\"percent\": 15}}", "tenants[0].commission.play", "play"),
        ("{\"stripe\": {\"percent\": 2, \"products\": {\"p\": 2.0001}}}", "tenants[0].commission.stripe.products[\"p\"]",
         "at most three decimals"),
        ("{\"stripe\": {\"percent\": 2, \"products\": [\"p\"]}}", "tenants[0].commission.stripe.products", "expected an object"),
    ])
    func aBadValueIsRefusedWhereItIs(commission: String, path: String, message: String) {
        let error = #expect(throws: TenantConfigError.self) {
            try TenantConfigLoader.parse(Array(Self.document(commission).utf8), file: "tenants.json", directory: "/")
        }
        #expect(error?.path == path, "\(String(describing: error))")
        #expect(error?.description.contains(message) == true, "\(String(describing: error))")
    }
}
