import AppStoreServerAPI
import Crypto
import Foundation

/// Offer signatures per second on one thread, in each of StoreKit's formats: each one a fresh nonce, the payload or
/// claims built, one ES256 signature and its encoding — the figure compared with `openssl speed ecdsap256` sign/s.
enum OfferSignRate {
    static func measure(seconds: Double) throws {
        let key = try P256.PrivateKey()
        let signatures = OfferSigner(
            credentials: try AppStoreAPICredentials(
                p8: key.pemRepresentation, keyID: "2X9R4HXF34", issuerID: "57246542-96fe-1a63-e053-0824d011072a",
                bundleID: AppStoreBench.bundleID))
        let formats: [(String, () throws -> Int)] = [
            ("StoreKit 1 promotional offer", {
                try signatures.promotionalOffer(
                    productID: AppStoreBench.productID, offerID: "winback_50",
                    appAccountToken: "4abf4f5a-9a0b-4f2b-8e2e-0b4c1c7c9d11", nonce: OfferSigner.nonce(),
                    timestamp: 1_764_000_000_000
                ).signature.utf8.count
            }),
            ("promotional offer JWS", {
                try signatures.promotionalOfferJWS(
                    productID: AppStoreBench.productID, offerID: "winback_50", transactionID: "2000000123456789",
                    nonce: OfferSigner.nonce(), issuedAt: 1_764_000_000
                ).utf8.count
            }),
            ("introductory offer eligibility JWS", {
                try signatures.introductoryOfferEligibilityJWS(
                    productID: AppStoreBench.productID, allowed: true, transactionID: "2000000123456789",
                    nonce: OfferSigner.nonce(), issuedAt: 1_764_000_000
                ).utf8.count
            }),
        ]
        let clock = ContinuousClock()
        let limit = Duration.milliseconds(Int64(seconds * 1000))
        for (name, sign) in formats {
            let start = clock.now
            var count = 0
            var elapsed = Duration.zero
            while elapsed < limit {
                for _ in 0..<32 where try sign() == 0 { fail("\(name): an empty signature") }
                count += 32
                elapsed = start.duration(to: clock.now)
            }
            let s = AppStoreBench.seconds(elapsed)
            print("\(name): signed \(count) in \(AppStoreBench.format(s)) s: \(Int((Double(count) / s).rounded()))/s")
        }
    }
}
