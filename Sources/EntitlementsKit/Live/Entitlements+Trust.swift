import EntitlementsProto
import Foundation

/// The signed status (``Configuration/statusKeys``): server answers taken only when they verify, the cache checked
/// again on load, and the last verified answer shown `offline` while the server cannot be reached, until its
/// validity ends.
extension Entitlements {
    /// A server answer as the status of `appUserID`, or nil when the app pins status keys and it does not verify
    /// (logged, with why: a forged or altered status must not reach the app).
    func serverSnapshot(_ customer: CustomerStatus, for appUserID: String) -> StatusSnapshot? {
        let now = configuration.clock.now()
        guard let keys = configuration.statusKeys else {
            return StatusSnapshot(customer, appUserID: appUserID, receivedAt: now)
        }
        switch keys.verify(customer.signedStatus, for: appUserID, at: now) {
        case .success(let claims):
            return StatusSnapshot(claims, token: customer.signedStatus, appUserID: appUserID, origin: .server, receivedAt: now)
        case .failure(let rejection):
            log(.error, "Ignored a status for \(appUserID) from the server: \(rejection).")
            return nil
        }
    }

    /// Whether `snapshot`, a verified signed status of a lower version than the one held, was also signed before it: a
    /// genuine old status replayed (by a proxy, say), which must not undo a newer one even while the held one is only
    /// cached. A server whose database went back signs its lower version anew, later, and is taken.
    func replaysOlder(_ snapshot: StatusSnapshot) -> Bool {
        guard snapshot.version < server.version, let held = server.signedStatus.flatMap(SignedStatusClaims.init(token:)),
            let next = snapshot.signedStatus.flatMap(SignedStatusClaims.init(token:)), next.issuedAt <= held.issuedAt
        else { return false }
        log(.error, "Ignored a status for \(identity.appUserID) from the server: version \(snapshot.version) was signed "
            + "before the version \(server.version) already verified (replayed).")
        return true
    }

    /// What the cache holds for `appUserID`: with status keys, only a signed status that still verifies and holds.
    static func cachedSnapshot(_ configuration: Configuration, for appUserID: String) -> StatusSnapshot? {
        guard let cached = configuration.cache.loadStatus(appUserID: appUserID) else { return nil }
        guard let keys = configuration.statusKeys else { return cached }
        guard let token = cached.signedStatus,
            case .success(let claims) = keys.verify(token, for: appUserID, at: configuration.clock.now())
        else {
            configuration.log(.warning, "Ignored the cached status of \(appUserID): it is not signed or no longer verifies.")
            return nil
        }
        return StatusSnapshot(claims, token: token, appUserID: appUserID, origin: .cache, receivedAt: cached.receivedAt)
    }

    /// The server could not be reached: the last verified status stands as `offline` (its expired entitlements
    /// dropped) while its validity holds.
    func serverUnreachable() {
        guard configuration.statusKeys != nil, server.validUntil != nil, server.origin != .offline else { return }
        server.origin = .offline
        republish()
        watchOfflineExpiries()
    }

    /// While the status is offline, publishes it again as each of its entitlements ends.
    private func watchOfflineExpiries() {
        offlineExpiries?.cancel()
        let clock = configuration.clock
        offlineExpiries = Task { [weak self] in
            while let next = await self?.offlineExpiry() {
                // A millisecond past it: a wake-up a hair early would publish the entitlement once more and stop.
                do { try await clock.sleep(Self.wait(next.timeIntervalSince(clock.now()) + 0.001)) } catch { return }
                await self?.republish()
            }
        }
    }

    /// When the offline status's next entitlement ends; nil once the status is no longer offline or none is left.
    private func offlineExpiry() -> Date? {
        guard server.origin == .offline else { return nil }
        return server.nextExpiry(after: configuration.clock.now())
    }

    /// Watches the validity of the signed status shown: shortly before it ends the server is asked for a fresh one;
    /// if none arrived when it ends, the status becomes `unknown` (never a stale `active`).
    func watchValidity() {
        validityWatch?.cancel()
        validityWatch = nil
        guard configuration.statusKeys != nil, let validUntil = server.validUntil else { return }
        let (clock, generation, version) = (configuration.clock, generation, server.version)
        validityWatch = Task { [weak self] in
            let left = validUntil.timeIntervalSince(clock.now())
            let lead = min(Self.validityRefreshLead, left / 2)
            do {
                try await clock.sleep(Self.wait(left - lead))
                _ = try? await self?.refresh()
                guard let remaining = await self?.validityLeft(validUntil, generation: generation, version: version)
                else { return }
                try await clock.sleep(Self.wait(remaining))
                await self?.validityEnded(validUntil, generation: generation, version: version)
            } catch {
                return  // cancelled: a newer status is watched instead
            }
        }
    }

    /// `seconds` as a wait, within 0 and 30 days (a signed status's longest validity): never a trap on a date a
    /// tampered cache made up.
    static func wait(_ seconds: TimeInterval) -> Duration {
        .milliseconds(Int64(min(max(0, seconds.isFinite ? seconds : 0), 30 * 86_400) * 1000))
    }

    /// How long before its validity ends a signed status is refreshed.
    static let validityRefreshLead: TimeInterval = 300

    /// The time left to the status of `generation` and `version` valid until `validUntil`; nil once another status
    /// replaced it.
    private func validityLeft(_ validUntil: Date, generation: Int, version: UInt64) -> TimeInterval? {
        guard generation == self.generation, server.version == version, server.validUntil == validUntil else { return nil }
        return validUntil.timeIntervalSince(configuration.clock.now())
    }

    private func validityEnded(_ validUntil: Date, generation: Int, version: UInt64) {
        guard validityLeft(validUntil, generation: generation, version: version) != nil else { return }
        log(.warning, "The signed status of \(identity.appUserID) is past its offline validity; the status is unknown.")
        server = .unknown(identity.appUserID)
        republish()
    }
}

extension EntitlementsError {
    /// The server could not be reached (as opposed to answering with an error).
    var isUnreachable: Bool { code == .unavailable || code == .deadlineExceeded }
}
