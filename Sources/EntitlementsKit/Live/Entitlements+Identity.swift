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
        let response = try await call {
            try await transport.identify(appUserID: appUserID, anonymousID: anonymousID == appUserID ? nil : anonymousID)
        }
        var next = CachedIdentity(appUserID: appUserID, anonymousID: nil, appAccountTokens: identity.appAccountTokens)
        if let anonymousID { next.appAccountTokens[anonymousID] = nil }
        await switchUser(to: next, response: response)
        log(.info, "Identified as \(appUserID)\(response.merged ? ", merging the anonymous customer" : "").")
        return Identified(created: response.created, merged: response.merged)
    }

    /// Signs the user out: the SDK continues as a fresh anonymous ID, which the server creates now.
    public func logOut() async throws {
        let anonymousID = AnonymousID.generate()
        let response = try await call { try await transport.identify(appUserID: anonymousID, anonymousID: nil) }
        await switchUser(to: CachedIdentity(appUserID: anonymousID, anonymousID: nil, appAccountTokens: [:]), response: response)
        log(.info, "Logged out; continuing as a new anonymous user.")
    }

    /// Calls `Identify` for the current user once per run (it creates the customer the first time and returns the
    /// app account token).
    func identifyIfNeeded() async throws {
        guard !identifiedOnServer else { return }
        let generation = generation
        let response = try await call { try await transport.identify(appUserID: identity.appUserID, anonymousID: nil) }
        guard generation == self.generation else { return }
        identifiedOnServer = true
        rememberToken(response.appAccountToken)
        if let customer = response.customer { await publishServer(customer, generation: generation) }
    }

    private func switchUser(to next: CachedIdentity, response: IdentifyResponse) async {
        let sameUser = next.appUserID == identity.appUserID
        identity = next
        rememberToken(response.appAccountToken)
        identifiedOnServer = true
        if !sameUser {
            generation += 1
            for waiter in waiters {
                waiter.continuation.resume(throwing: EntitlementsError(code: .cancelled, message: "The user changed."))
            }
            waiters.removeAll()
            server = configuration.cache.loadStatus(appUserID: next.appUserID) ?? .unknown(next.appUserID)
            republish()
        }
        if !sameUser, stream != nil {
            closeStream()
            openStreamIfWanted()
        }
        if let customer = response.customer { await publishServer(customer, generation: generation) }
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
