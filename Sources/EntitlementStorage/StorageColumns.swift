public import EntitlementDomain

/// The column values domain enums are stored as. Written out here, never derived from declaration order: a
/// reordered enum must not rewrite history on disk (a test pins every value). A value this build does not know is
/// reported as a corrupt database, not guessed.
public enum StorageColumns {
    public static func store(_ store: Store) -> Int64 {
        switch store {
        case .appStore: 1
        case .playStore: 2
        case .stripe: 3
        }
    }

    public static func environment(_ environment: PurchaseEnvironment) -> String {
        switch environment {
        case .production: "Production"
        case .sandbox: "Sandbox"
        case .xcode: "Xcode"
        case .localTesting: "LocalTesting"
        }
    }

    public static func ownership(_ ownership: PurchaseOwnership) -> String {
        switch ownership {
        case .purchased: "PURCHASED"
        case .familyShared: "FAMILY_SHARED"
        }
    }

    public static func origin(_ origin: PurchaseOrigin) -> String {
        switch origin {
        case .device: "device"
        case .notification: "notification"
        case .storeAPI: "store_api"
        }
    }

    public static func acknowledgement(_ state: PurchaseAcknowledgement.State) -> String {
        switch state {
        case .notRequired: "not_required"
        case .pending: "pending"
        case .acknowledged: "acknowledged"
        case .failed: "failed"
        }
    }

    public static func cause(_ cause: EventCause) -> Int64 {
        switch cause {
        case .created: 1
        case .merged: 2
        case .purchase: 3
        case .restore: 4
        case .transferredIn: 5
        case .transferredOut: 6
        case .appStoreNotification: 7
        case .playStoreNotification: 8
        case .grant: 9
        case .revoke: 10
        case .expiry: 11
        case .storeAPI: 12
        case .stripeWebhook: 13
        case .redemption: 14
        case .support: 15
        case .attributes: 16
        case .offerSigned: 17
        }
    }

    public static func change(_ change: StatusChange) -> Int64 {
        switch change {
        case .statusChanged: 2
        case .customerInfoChanged: 3
        }
    }

    public static func webhookState(_ state: WebhookDelivery.State) -> Int64 {
        switch state {
        case .pending: 1
        case .delivered: 2
        case .failed: 3
        case .notice: 4
        }
    }

    /// The enum case stored as `value` in `column`; a corrupt-database error for a value no case has.
    static func decode<Case: CaseIterable & Equatable, Value: Equatable>(
        _ value: Value, column: String, as encode: (Case) -> Value
    ) throws(StorageError) -> Case {
        guard let match = Case.allCases.first(where: { encode($0) == value }) else {
            throw StorageError.corrupt("unknown value \(value) in column \(column)")
        }
        return match
    }
}
