#if canImport(SwiftUI) && canImport(StoreKit) && !os(visionOS)
    import EntitlementsKit
    import StoreKit
    import SwiftUI

    // The README's Swift SDK guide, step 3: gate on the status in SwiftUI, and buy with StoreKit 2.

    @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, *)
    struct ProGate<Content: View>: View {
        let model: EntitlementsModel
        let entitlements: Entitlements
        @ViewBuilder let content: () -> Content

        var body: some View {
            switch model.status {
            case .unknown:
                ProgressView()  // Neither the paywall nor the content while nothing is known.
            case .active(let active) where active.contains { $0.id == "pro" }:
                content()
            default:
                PaywallView(entitlements: entitlements)
            }
        }
    }

    struct PaywallView: View {
        let entitlements: Entitlements
        @State private var error: String?

        var body: some View {
            Button("Subscribe to Pro") { Task { await buy("com.example.pro.monthly") } }
            if let error { Text(error) }
        }

        func buy(_ productID: String) async {
            do {
                guard let product = try await Product.products(for: [productID]).first else { return }
                var options: Set<Product.PurchaseOption> = []
                // The server's token for this user: Apple's notifications about the purchase name its customer.
                if let token = await entitlements.appAccountToken { options.insert(.appAccountToken(token)) }
                guard case .success(let verification) = try await product.purchase(options: options),
                    case .verified(let transaction) = verification
                else { return }
                // Forward the signed transaction; finish it only once the server has it.
                _ = try await entitlements.purchase(signedTransaction: verification.jwsRepresentation)
                await transaction.finish()
            } catch let failure as EntitlementsError {
                error = failure.message  // failure.recovery says whether a retry can help.
            } catch {
                self.error = "\(error)"
            }
        }
    }
#endif
