import AppStore
import CivilCalendar
import Foundation

/// Verified transactions per second on one thread: one token, verified again and again by one `SignedDataVerifier`.
/// After the first call the chain is cached, so each call is parsing, one ES256 verify and the identity checks — the
/// figure compared with `openssl speed ecdsap256` verify/s.
enum VerifyRate {
    static func measure(seconds: Double) throws {
        let now = Int64(Date().timeIntervalSince1970)
        let ca = try LocalSigningCA.create(validFrom: now - Seconds.perDay, validUntil: now + 365 * Seconds.perDay)
        let token = try ca.sign(
            LocalPayloads.transaction(
                bundleID: AppStoreBench.bundleID, productID: AppStoreBench.productID,
                originalTransactionID: AppStoreBench.originalTransactionID(0),
                expiresDate: LocalPayloads.nowMilliseconds() + 30 * Milliseconds.perDay))
        let verifier = try SignedDataVerifier(
            trustedRoots: [ca.root], bundleID: AppStoreBench.bundleID, appAppleID: nil, environment: .sandbox)
        _ = try verifier.verifyTransaction(token)  // fills the chain cache
        let clock = ContinuousClock()
        let start = clock.now
        let limit = Duration.milliseconds(Int64(seconds * 1000))
        var count = 0
        var elapsed = Duration.zero
        while elapsed < limit {
            for _ in 0..<32 {
                let transaction = try verifier.verifyTransaction(token)
                guard transaction.originalTransactionId != nil else { fail("verified transaction has no ID") }
            }
            count += 32
            elapsed = start.duration(to: clock.now)
        }
        let s = AppStoreBench.seconds(elapsed)
        print("verified \(count) tokens in \(AppStoreBench.format(s)) s: \(Int((Double(count) / s).rounded()))/s")
    }
}
