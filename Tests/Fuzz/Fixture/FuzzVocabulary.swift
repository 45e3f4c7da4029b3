/// Names the fuzz fixture's tenant and seeded data use, so that generated requests find what they name (a customer,
/// a purchase, an endpoint) as often as they miss it.
public enum FuzzVocabulary {
    /// The tenant with every store configured, and one with none.
    public static let tenantID = "fuzz"
    public static let bareTenantID = "bare"
    public static let tenantIDs = [tenantID, bareTenantID, "nobody", "FUZZ", "%00", "a/b"]

    /// Seeded: alice holds a grant and an App Store subscription, bob a Play subscription, carol merged $anon:1.
    public static let appUserIDs = ["alice", "bob", "carol", "$anon:1", "dave", "$RCAnonymousID:0001"]
    public static let entitlementIDs = ["pro", "plus", "support", "undeclared"]
    public static let productIDs = ["com.example.monthly", "premium", "lifetime", "coins", "web.monthly", "com.example.pass"]
    /// alice's subscription (seeded), then IDs the store answers for but nobody holds.
    public static let appStoreTransactionIDs = [
        "2000000000000001", "2000000000000002", "1", "0", "99999999999999999999999999999999", "123456789012345678901234567890123",
    ]
    public static let playTokens = ["play-token-1", "play-token-2", "play-token-unknown"]
    public static let stripeIDs = ["cs_unowned1", "cs_fuzz1", "sub_fuzz1", "cus_fuzz1", "in_fuzz1", "pi_fuzz1", "ch_fuzz1", "dp_fuzz1"]
    public static let webhookEndpoints = ["main", "gone", "missing"]
    /// Metric dates: ordinary ones, the calendar's edges, and not quite dates.
    public static let dates = [
        "2026-01-01", "2026-12-31", "1970-01-01", "0000-01-01", "9999-12-31", "2026-02-29", "2024-02-29", "2026-13-01",
        "26-01-01", "2026-1-01", "",
    ]
    public static let orderIDs = ["MK5TTTVWJH", "0", "unknownorder"]
    public static let notificationUUIDs = ["00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002"]
    public static let appAccountTokens = ["00000000-0000-8000-8000-000000000001", "not-a-uuid"]
    public static let reasons = ["support ticket 1", "  ", "🙂"]
}
