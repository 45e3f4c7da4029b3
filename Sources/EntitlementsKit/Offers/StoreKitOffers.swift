#if canImport(StoreKit)
    public import StoreKit
    import Foundation

    /// The offers as StoreKit 2 takes them (`Product.purchase(options:)`).
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
    extension Entitlements {
        /// The purchase options that apply `offerID` to a purchase of `productID` by the current user, signed by the
        /// server once the offer's rules pass: `try await product.purchase(options: Set(options))`.
        public func promotionalOffer(for offerID: String, productID: String) async throws -> [Product.PurchaseOption] {
            try await signedPromotionalOffer(for: offerID, productID: productID).purchaseOptions
        }

        /// The purchase option that tells StoreKit whether the current user may have `productID`'s introductory
        /// offer, as the server decided from the user's purchases in every store.
        public func introductoryOfferEligibility(productID: String, appTransactionID: String? = nil) async throws
            -> Product.PurchaseOption
        {
            let signed = try await signedIntroductoryOfferEligibility(productID: productID, appTransactionID: appTransactionID)
            return .introductoryOfferEligibility(compactJWS: signed.compactJWS)
        }
    }

    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
    extension Entitlements.SignedPromotionalOffer {
        /// The user's app account token (which the StoreKit 1 signature names) and the offer: as a compact JWS where
        /// the SDK StoreKit is built with has it (Xcode 26 and later, back-deployed to iOS 15), else the StoreKit 1
        /// signature.
        public var purchaseOptions: [Product.PurchaseOption] {
            var options: [Product.PurchaseOption] = []
            if let token = UUID(uuidString: appAccountToken) { options.append(.appAccountToken(token)) }
            #if compiler(>=6.2)
                options += Product.PurchaseOption.promotionalOffer(offerID, compactJWS: compactJWS)
            #else
                if let nonce = UUID(uuidString: nonce), let signature = Data(base64Encoded: signature) {
                    options.append(
                        .promotionalOffer(
                            offerID: offerID, keyID: keyID, nonce: nonce, signature: signature, timestamp: Int(timestamp)))
                }
            #endif
            return options
        }
    }
#endif
