import EntitlementsKit
import Foundation

// The README's Swift SDK guide, step 1: one Entitlements for the app, made at launch.

/// The products the app sells and the entitlements each unlocks (the tenant's `products`), so that what StoreKit
/// shows on the device counts before the server has answered.
let productEntitlements: [String: Set<String>] = [
    "com.example.pro.monthly": ["pro"],
    "com.example.premium.lifetime": ["premium", "pro"],
]

/// - Parameters:
///   - log: where the SDK says what it does (an `os.Logger` in an app); it never logs keys, tokens or signed data.
///   - statusKeys: the tenant's status keys (`/.well-known/entitlementd/TENANT/jwks.json`, shipped in the app), when
///     the tenant signs status: a status that does not verify is ignored, and the last verified one stands as
///     `.offline` while the server cannot be reached, until its validity ends.
///   - userTokens: the app's backend's tokens for the signed-in user, when the tenant requires user tokens.
func makeEntitlements(
    serverURL: URL, publicKey: String, cache: any StatusCache, log: EntitlementsLog, statusKeys: StatusKeys?,
    userTokens: UserTokenProvider?
) -> Entitlements {
    #if canImport(StoreKit)
        let localSource: (any LocalEntitlementSource)? = StoreKitEntitlementSource()
    #else
        let localSource: (any LocalEntitlementSource)? = nil
    #endif
    return Entitlements(
        configuration: .init(
            transport: GRPCWebTransport(baseURL: serverURL, publicKey: publicKey, userTokens: userTokens),
            cache: cache,
            localSource: localSource,
            productEntitlements: productEntitlements,
            log: log,
            statusKeys: statusKeys))
}
