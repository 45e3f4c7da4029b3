public import EntitlementDomain

/// The revenue ledger's values: words, since analysts read them (README, "The revenue ledger"); the kinds' words are
/// the domain's (``MovementKind/name`` and the others), as webhooks say them.
extension StorageColumns {
    public static func ledgerStore(_ store: Store) -> String {
        switch store {
        case .appStore: "app_store"
        case .playStore: "play_store"
        case .stripe: "stripe"
        }
    }
}
