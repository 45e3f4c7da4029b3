/// Who keeps a store purchase when another user of the app purchases or restores it (App Store and Google Play alike).
public enum TransferPolicy: String, Sendable, Hashable, CaseIterable, ConfiguredName {
    /// The default: it moves to the user who purchased or restored it; the previous owner loses it.
    case transfer = "transfer"
    /// It moves only when the current owner has no active access from it.
    case transferIfNoActive = "transfer_if_no_active"
    /// It stays with its first owner; the other user's call fails with `ALREADY_EXISTS`.
    case keepWithOriginal = "keep_with_original"

    package static let nameKind = "transfer policy"
}
