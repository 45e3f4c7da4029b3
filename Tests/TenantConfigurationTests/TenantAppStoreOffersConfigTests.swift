import EntitlementDomain
import TenantConfiguration
import TestSupport
import Testing

/// `app_store.offers`: promotional offers and their rules, and whose history decides introductory offers.
@Suite struct TenantAppStoreOffersConfigTests {
    static let products = #"{"com.example.pro.monthly": ["pro"], "com.example.pro.yearly": ["pro"]}"#

    func load(offers: String, serverAPI: Bool = true) throws(TenantConfigError) -> AppStoreOffers? {
        let keys = try! TenantAppStoreServerAPIConfigTests.KeyFiles()
        var fields = ["\"bundle_id\": \"com.example.app\"", "\"environments\": [\"Sandbox\"]"]
        if serverAPI {
            fields.append(
                "\"server_api\": {\"key_file\": \"\(keys.key)\", \"key_id\": \(TenantAppStoreServerAPIConfigTests.keyID), "
                    + "\"issuer_id\": \(TenantAppStoreServerAPIConfigTests.issuerID)}")
        }
        fields.append("\"offers\": " + offers)
        let text = SettingsDocument.text(
            section: "app_store", fields: fields, publicHash: APIKey.hashString("pk_test_public")!, products: Self.products)
        return try TenantConfigLoader.parse(
            Array(text.utf8), file: "tenants.json", directory: RepositoryFiles.path("Config")
        ).tenant(id: "demo")?.appStore?.offers
    }

    func failure(_ offers: String, serverAPI: Bool = true, sourceLocation: SourceLocation = #_sourceLocation)
        -> TenantConfigError?
    {
        do {
            _ = try load(offers: offers, serverAPI: serverAPI)
            Issue.record("expected a configuration error", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error
        }
    }

    @Test func everyRuleAsConfigured() throws {
        let offers = try #require(
            try load(
                offers: """
                    {"promotional": {
                      "winback_50": {"products": ["com.example.pro.monthly", "com.example.pro.yearly"], "customers": "lapsed",
                        "lapsed_days": 30, "refunded": false, "limit": {"count": 1, "days": 365},
                        "starts_at": "2026-12-01T00:00:00Z", "ends_at": "2027-01-01T00:00:00Z"},
                      "stay": {"products": ["com.example.pro.monthly"], "customers": "subscribed"},
                      "welcome": {"products": ["com.example.pro.yearly"], "customers": "new"},
                      "any.one-1": {"products": ["com.example.pro.yearly"]}
                    },
                    "introductory": {"history": "app_store"}}
                    """))
        let winback = try #require(offers.promotional["winback_50"])
        #expect(winback.productIDs == ["com.example.pro.monthly", "com.example.pro.yearly"])
        #expect(winback.audience == .lapsed(days: 30))
        #expect(winback.refunded == false)
        #expect(winback.limit == OfferLimit(count: 1, days: 365))
        #expect(winback.startsAt == UnixTime(milliseconds: 1_796_083_200_000))
        #expect(winback.endsAt == UnixTime(milliseconds: 1_798_761_600_000))
        #expect(offers.promotional["stay"]?.audience == .subscribed)
        #expect(offers.promotional["welcome"]?.audience == .newSubscribers)
        #expect(offers.promotional["any.one-1"] == PromotionalOfferRules(productIDs: ["com.example.pro.yearly"]))
        #expect(offers.introductory == .appStore)
        #expect(try load(offers: "{}") == AppStoreOffers(promotional: [:], introductory: .allStores))
        #expect(try load(offers: #"{"promotional": {"l": {"products": ["com.example.pro.yearly"], "customers": "lapsed"}}}"#)?
            .promotional["l"]?.audience == .lapsed(days: 1))
    }

    @Test(arguments: [
        (#"{}"#, false, "app_store.offers", "missing_field"),
        (#"{"promotional": {"bad id!": {"products": ["com.example.pro.monthly"]}}}"#, true, #"app_store.offers.promotional["bad id!"]"#, "invalid_value"),
        (#"{"promotional": {"x": {}}}"#, true, #"app_store.offers.promotional["x"]"#, "missing_field"),
        (#"{"promotional": {"x": {"products": []}}}"#, true, #"app_store.offers.promotional["x"].products"#, "invalid_value"),
        (#"{"promotional": {"x": {"products": ["com.example.other"]}}}"#, true, #"app_store.offers.promotional["x"].products[0]"#, "unmapped_product"),
        (#"{"promotional": {"x": {"products": ["com.example.pro.monthly", "com.example.pro.monthly"]}}}"#, true, #"app_store.offers.promotional["x"].products[1]"#, "duplicate_entry"),
        (#"{"promotional": {"x": {"products": ["com.example.pro.monthly"], "customers": "lapsing"}}}"#, true, #"app_store.offers.promotional["x"].customers"#, "invalid_value"),
        (#"{"promotional": {"x": {"products": ["com.example.pro.monthly"], "lapsed_days": 3}}}"#, true, #"app_store.offers.promotional["x"].lapsed_days"#, "conflicting_fields"),
        (#"{"promotional": {"x": {"products": ["com.example.pro.monthly"], "customers": "lapsed", "lapsed_days": 0}}}"#, true, #"app_store.offers.promotional["x"].lapsed_days"#, "invalid_value"),
        (#"{"promotional": {"x": {"products": ["com.example.pro.monthly"], "customers": "lapsed", "lapsed_days": 1e99}}}"#, true, #"app_store.offers.promotional["x"].lapsed_days"#, "invalid_value"),
        (#"{"promotional": {"x": {"products": ["com.example.pro.monthly"], "limit": {"count": 1}}}}"#, true, #"app_store.offers.promotional["x"].limit"#, "missing_field"),
        (#"{"promotional": {"x": {"products": ["com.example.pro.monthly"], "limit": {"count": 0, "days": 1}}}}"#, true, #"app_store.offers.promotional["x"].limit.count"#, "invalid_value"),
        (#"{"promotional": {"x": {"products": ["com.example.pro.monthly"], "limit": {"count": 1, "days": 99999999999999999999}}}}"#, true, #"app_store.offers.promotional["x"].limit.days"#, "invalid_value"),
        (#"{"promotional": {"x": {"products": ["com.example.pro.monthly"], "refunded": "no"}}}"#, true, #"app_store.offers.promotional["x"].refunded"#, "type_mismatch"),
        (#"{"promotional": {"x": {"products": ["com.example.pro.monthly"], "starts_at": "tomorrow"}}}"#, true, #"app_store.offers.promotional["x"].starts_at"#, "invalid_value"),
        (#"{"promotional": {"x": {"products": ["com.example.pro.monthly"], "starts_at": "2027-01-01T00:00:00Z", "ends_at": "2027-01-01T00:00:00Z"}}}"#, true, #"app_store.offers.promotional["x"].ends_at"#, "invalid_value"),
        (#"{"introductory": {"history": "everywhere"}}"#, true, "app_store.offers.introductory.history", "invalid_value"),
        (#"{"promos": {}}"#, true, "app_store.offers.promos", "unknown_field"),
    ])
    func refusesWhatCannotBeRight(offers: String, serverAPI: Bool, path: String, code: String) {
        let error = failure(offers, serverAPI: serverAPI)
        #expect(error?.path == "tenants[0]." + path, "\(String(describing: error))")
        #expect(error?.code.rawValue == code, "\(String(describing: error))")
    }

    /// A tenant built in code is checked by the same rules, at the same relative paths.
    @Test func aTenantBuiltInCodeIsCheckedAlike() throws {
        let keys = try TenantAppStoreServerAPIConfigTests.KeyFiles()
        func tenant(_ offers: AppStoreOffers, key: Bool = true) throws(TenantRuleError) -> Tenant {
            try Tenant(
                id: "demo", publicKeyHashes: [APIKey.hashString("pk_test_public")!], secretKeyHashes: [], entitlements: ["pro"],
                allowUndeclaredEntitlements: false, products: ["com.example.pro.monthly": ["pro"]],
                appStore: AppStoreSettings(
                    bundleID: "com.example.app", environments: [.sandbox],
                    rootCertificatePaths: [RepositoryFiles.path("Config/AppleRootCA-G3.cer")],
                    serverAPI: key
                        ? AppStoreServerAPISettings(
                            keyFilePath: keys.key, keyID: "2X9R4HXF34", issuerID: "57246542-96fe-1a63-e053-0824d011072a")
                        : nil,
                    offers: offers))
        }
        let good = AppStoreOffers(promotional: ["x": PromotionalOfferRules(productIDs: ["com.example.pro.monthly"], audience: .lapsed(days: 7))])
        #expect(try tenant(good).appStore?.offers == good)
        #expect(throws: TenantRuleError.self) { try tenant(good, key: false) }
        do {
            _ = try tenant(AppStoreOffers(promotional: ["x": PromotionalOfferRules(productIDs: ["com.example.pro.monthly"], audience: .lapsed(days: 0))]))
            Issue.record("expected a rule error")
        } catch {
            #expect(error.path == #"tenant.app_store.offers.promotional["x"].lapsed_days"#, "\(error)")
        }
    }
}
