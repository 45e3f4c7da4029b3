import EntitlementsKit
import Foundation

// The README's Swift SDK guide, step 1: one Entitlements for the app, made at launch.

/// The products the app sells and the entitlements each unlocks (the tenant's `products`), so that what StoreKit
/// shows on the device counts before the server has answered.
let productEntitlements: [String: Set<String>] = [
    "com.example.pro.monthly": ["pro"],
    "com.example.premium.lifetime": ["premium", "pro"],
]

/// - Parameter log: where the SDK says what it does (an `os.Logger` in an app); it never logs keys or signed data.
func makeEntitlements(serverURL: URL, publicKey: String, cache: any StatusCache, log: EntitlementsLog) -> Entitlements {
    #if canImport(StoreKit)
        let localSource: (any LocalEntitlementSource)? = StoreKitEntitlementSource()
    #else
        let localSource: (any LocalEntitlementSource)? = nil
    #endif
    return Entitlements(
        configuration: .init(
            transport: GRPCWebTransport(baseURL: serverURL, publicKey: publicKey),
            cache: cache,
            localSource: localSource,
            productEntitlements: productEntitlements,
            log: log))
}
