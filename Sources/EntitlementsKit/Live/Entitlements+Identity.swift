import EntitlementsProto
import Foundation

extension Entitlements {
    /// What `identify` did on the server.
    public struct Identified: Sendable, Hashable {
        /// The account did not exist before.
        public var created: Bool
        /// The anonymous customer of this device was merged into the account.
        public var merged: Bool
    }

    /// Signs the user in as `appUserID` (the app's own account ID): the anonymous customer of this device, if the
    /// SDK was anonymous, is merged into the account, and the status, stream and cache switch to the account.
    @discardableResult
    public func identify(_ appUserID: String) async throws -> Identified {
        let anonymousID = isAnonymous ? identity.appUserID : nil
        let response = try await call(about: appUserID) {
            try await transport.identify(appUserID: appUserID, anonymousID: anonymousID == appUserID ? nil : anonymousID)
        }
        var next = CachedIdentity(appUserID: appUserID, appAccountTokens: identity.appAccountTokens)
        // The anonymous ID is an alias of the account now: its token is the account's business.
        if let anonymousID { next.appAccountTokens[anonymousID] = nil }
        await switchUser(to: next, response: response)
        log(.info, "Identified as \(appUserID)\(response.merged ? ", merging the anonymous customer" : "").")
        return Identified(created: response.created, merged: response.merged)
    }

    /// Signs the user out: the SDK continues as a fresh anonymous ID, which the server creates now.
    public func logOut() async throws {
        let anonymousID = AnonymousID.generate()
        let response = try await call(about: anonymousID) {
            try await transport.identify(appUserID: anonymousID, anonymousID: nil)
        }
        await switchUser(
            to: CachedIdentity(appUserID: anonymousID, appAccountTokens: identity.appAccountTokens), response: response)
        log(.info, "Logged out; continuing as a new anonymous user.")
    }

    /// How the server's `NOT_FOUND` begins for a user it erased (`StreamStatus`, `SyncStatus`).
    static let deletedPrefix = "customer deleted"

    /// The server erased the user: the SDK logs out as ``logOut()`` does, once the server answers (it retries until
    /// then, as the stream would).
    func loggedOutByServer() async {
        log(.warning, "The server deleted this user; continuing as a new anonymous user.")
        var attempt = 0
        while !Task.isCancelled {
            do {
                try await logOut()
                return
            } catch {
                attempt += 1
                try? await configuration.clock.sleep(configuration.jitter(configuration.backoff.step(attempt: attempt)))
            }
        }
    }

    /// Calls `Identify` for the current user once per run (it creates the customer the first time and returns the
    /// app account token).
    func identifyIfNeeded() async throws {
        guard !identifiedOnServer else { return }
        let generation = generation
        let appUserID = identity.appUserID
        let response = try await call { try await transport.identify(appUserID: appUserID, anonymousID: nil) }
        try checkUser(generation)
        identifiedOnServer = true
        rememberToken(response.appAccountToken)
        if let customer = response.customer { await publishServer(customer, generation: generation) }
    }

    /// Makes `next` the user: the server's answer (or the cache, or nothing known) is published at once, the stream
    /// follows, and waiters for the previous user give up.
    private func switchUser(to next: CachedIdentity, response: IdentifyResponse) async {
        let sameUser = next.appUserID == identity.appUserID
        identity = next
        rememberToken(response.appAccountToken)
        identifiedOnServer = true
        guard !sameUser else {
            if let customer = response.customer { await publishServer(customer, generation: generation) }
            return
        }
        generation += 1
        for id in waiters.keys { resumeWaiter(id) }
        server =
            response.customer.flatMap { serverSnapshot($0, for: next.appUserID) }
            ?? Self.cachedSnapshot(configuration, for: next.appUserID) ?? .unknown(next.appUserID)
        if server.origin == .server { try? configuration.cache.saveStatus(server) }
        republish()
        watchValidity()
        if stream != nil {
            closeStream()
            openStreamIfWanted()
        }
    }

    private func rememberToken(_ token: String) {
        guard let uuid = UUID(uuidString: token), identity.appAccountTokens[identity.appUserID] != uuid else {
            saveIdentity()
            return
        }
        identity.appAccountTokens[identity.appUserID] = uuid
        saveIdentity()
    }
}
