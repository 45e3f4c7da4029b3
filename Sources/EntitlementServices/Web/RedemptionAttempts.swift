import EntitlementDomain
import Synchronization

/// Failed redemption attempts, counted per tenant and per app user over a sliding window, so that codes cannot be
/// guessed: past either limit every attempt is refused unchecked until the window's oldest failure ages out.
/// In memory, per instance: the codes' 160 random bits are the real defence; this only makes guessing noisy.
public final class RedemptionAttempts: Sendable {
    public struct Limits: Sendable {
        public var perUser: Int
        public var perTenant: Int
        public var windowMilliseconds: Int64

        public init(perUser: Int = 5, perTenant: Int = 100, windowMilliseconds: Int64 = 15 * 60 * 1000) {
            self.perUser = perUser
            self.perTenant = perTenant
            self.windowMilliseconds = windowMilliseconds
        }
    }

    private struct Key: Hashable {
        var tenantID: String
        /// Empty for the tenant's own count.
        var appUserID: String
    }

    let limits: Limits
    /// Failure times per key, oldest first; a key holds at most its limit (older ones no longer matter). Keys
    /// whose failures have all aged out are dropped as others are added, so at most `perTenant` user keys per
    /// tenant are live at once.
    private let failures = Mutex<[Key: [Int64]]>([:])

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// nil when `appUserID` may try now; else how many seconds until it may.
    func retryAfter(tenantID: String, appUserID: String, now: UnixTime) -> Int64? {
        let keys = [(Key(tenantID: tenantID, appUserID: ""), limits.perTenant), (Key(tenantID: tenantID, appUserID: appUserID), limits.perUser)]
        return failures.withLock { failures in
            var wait: Int64?
            for (key, limit) in keys {
                let recent = (failures[key] ?? []).filter { $0 > now.milliseconds - limits.windowMilliseconds }
                guard recent.count >= limit, let oldest = recent.first else { continue }
                let seconds = (oldest + limits.windowMilliseconds - now.milliseconds + 999) / 1000
                wait = max(wait ?? 0, seconds)
            }
            return wait
        }
    }

    func recordFailure(tenantID: String, appUserID: String, now: UnixTime) {
        let window = limits.windowMilliseconds
        failures.withLock { failures in
            for (key, limit) in [(Key(tenantID: tenantID, appUserID: ""), limits.perTenant), (Key(tenantID: tenantID, appUserID: appUserID), limits.perUser)] {
                var times = (failures[key] ?? []).filter { $0 > now.milliseconds - window }
                times.append(now.milliseconds)
                failures[key] = Array(times.suffix(limit))
            }
            if failures.count > 4 * limits.perTenant {
                failures = failures.filter { $0.value.last.map { $0 > now.milliseconds - window } ?? false }
            }
        }
    }
}
