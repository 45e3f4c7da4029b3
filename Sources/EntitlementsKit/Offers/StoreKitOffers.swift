#if canImport(StoreKit)
    public import StoreKit
    import Foundation

    /// The offers as StoreKit 2 takes them (`Product.purchase(options:)`).
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
    extension Entitlements {
        /// The purchase options that apply `offerID` to a purchase of `productID` by the current user, signed by the
        /// server once the offer's rules pass: `try await product.purchase(options: Set(options))`.
        public func promotionalOffer(for offerID: String, productID: String) async throws -> [Product.PurchaseOption] {
            try await signedPromotionalOffer(for: offerID, productID: productID).purchaseOptions()
        }

        #if compiler(>=6.1)
            /// The purchase option that withholds `productID`'s introductory offer from the current user, whose
            /// purchases in another store say it is not for them; nil when StoreKit's own eligibility stands. The
            /// option exists in the iOS 18.4 SDK (Xcode 16.3) and later, back-deployed to iOS 15.
            public func introductoryOfferEligibility(productID: String, appTransactionID: String? = nil) async throws
                -> Product.PurchaseOption?
            {
                guard
                    let signed = try await signedIntroductoryOfferEligibility(
                        productID: productID, appTransactionID: appTransactionID)
                else { return nil }
                return .introductoryOfferEligibility(compactJWS: signed.compactJWS)
            }
        #endif
    }

    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
    extension Entitlements.SignedPromotionalOffer {
        /// The user's app account token (which the StoreKit 1 signature names) and the offer: as a compact JWS where
        /// the SDK StoreKit is built with has it (Xcode 26 and later, back-deployed to iOS 15), else the StoreKit 1
        /// signature. Throws rather than leave the offer out (the purchase would go ahead at full price).
        public func purchaseOptions() throws -> [Product.PurchaseOption] {
            guard let token = UUID(uuidString: appAccountToken) else {
                throw EntitlementsError(code: .internal, message: "The server's app account token is not a UUID.")
            }
            var options: [Product.PurchaseOption] = [.appAccountToken(token)]
            #if compiler(>=6.2)
                options += Product.PurchaseOption.promotionalOffer(offerID, compactJWS: compactJWS)
            #else
                guard let nonce = UUID(uuidString: nonce), let signature = Data(base64Encoded: signature),
                    let timestamp = Int(exactly: timestamp)
                else {
                    throw EntitlementsError(code: .internal, message: "The server's offer signature cannot be read.")
                }
                options.append(
                    .promotionalOffer(offerID: offerID, keyID: keyID, nonce: nonce, signature: signature, timestamp: timestamp))
            #endif
            return options
        }
    }
#endif
