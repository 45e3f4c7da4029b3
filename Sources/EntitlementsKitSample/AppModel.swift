import EntitlementsKit
import Foundation

// The README's Swift SDK guide, step 2: the app's root object, made once at launch.

@available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)  // EntitlementsModel: Observation
@MainActor
final class AppModel {
    let entitlements: Entitlements
    /// What SwiftUI views read (`model.status`, `model.isActive("pro")`).
    let model: EntitlementsModel
    #if canImport(UIKit) && !os(watchOS)
        private let lifecycle: AppLifecycleObserver
    #endif

    init(
        serverURL: URL, publicKey: String, cache: any StatusCache, log: EntitlementsLog, statusKeys: StatusKeys?,
        userTokens: UserTokenProvider?
    ) {
        entitlements = makeEntitlements(
            serverURL: serverURL, publicKey: publicKey, cache: cache, log: log, statusKeys: statusKeys,
            userTokens: userTokens)
        // Observe first: the cached status shows at once, marked `.cache`, before the server answers.
        model = EntitlementsModel(entitlements)
        #if canImport(UIKit) && !os(watchOS)
            // Closes the stream in the background; on return, SyncStatus and a resumed stream.
            lifecycle = AppLifecycleObserver(entitlements)
        #endif
        Task { [entitlements] in await entitlements.start() }
    }

    /// After the app's own sign-in: this device's anonymous purchases move to the account.
    func signedIn(as accountID: String) async throws {
        try await entitlements.identify(accountID)
    }

    func signedOut() async throws {
        try await entitlements.logOut()
    }
}
