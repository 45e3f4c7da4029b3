/// The keys ``EngineCore/write(orderedBy:_:)`` takes: writes with one key take one lane, and so commit, publish and
/// push in the order they were submitted. One customer can be named several ways (an app user ID, an alias, its row
/// ID, a purchase it owns); writes naming it differently may take different lanes, and its row lock then orders them.
enum WriteOrder {
    static func customer(_ tenantID: String, appUserID: String) -> String { tenantID + "\u{0}u" + appUserID }
    static func customer(_ tenantID: String, id: Int64) -> String { tenantID + "\u{0}c" + String(id) }
    static func purchase(_ tenantID: String, _ store: Store, _ originalTransactionID: String) -> String {
        tenantID + "\u{0}p" + String(describing: store) + "\u{0}" + originalTransactionID
    }
    static func purchase(of purchase: StorePurchase) -> String {
        Self.purchase(purchase.tenantID, purchase.store, purchase.originalTransactionID)
    }
}
