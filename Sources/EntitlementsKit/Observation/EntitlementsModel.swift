#if canImport(Observation)
    public import Observation

    /// The status for SwiftUI (or any Observation user) on the main actor: `status` and `snapshot` follow the
    /// shared stream while the model lives.
    @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
    @MainActor @Observable
    public final class EntitlementsModel {
        public private(set) var snapshot: StatusSnapshot
        /// What the last update changed (nil for the first value).
        public private(set) var lastChange: StatusChange?
        /// Set once in `init`; read only by `deinit`, which has the object to itself.
        @ObservationIgnored nonisolated(unsafe) private var following: Task<Void, Never>?

        public var status: SubscriptionStatus { snapshot.status }
        public func isActive(_ entitlementID: String) -> Bool { snapshot.status.isActive(entitlementID) }

        /// Starts following `entitlements` at once.
        public init(_ entitlements: Entitlements, appUserID: String = "") {
            snapshot = .unknown(appUserID)
            following = Task { [weak self] in
                for await update in await entitlements.updates() {
                    guard let self else { return }
                    self.snapshot = update.snapshot
                    self.lastChange = update.change
                }
            }
        }

        deinit {
            following?.cancel()
        }
    }
#endif
