public import Foundation
import Encodings

/// Where the SDK gets user tokens (short-lived JWTs from the app's own backend proving an app user ID) for a tenant
/// whose `user_tokens` are checked: the app's closure, asked for the user a call is about when no token is held for
/// them or the one held expires within ``refreshMargin``, and again when the server refuses the one held. Transports
/// send it as the `entitlements-user-token` metadata. Anonymous IDs go without one until the server asks for one (a
/// tenant with `allow_anonymous` false). The SDK never logs a token or puts one in an error or the cache.
public actor UserTokenProvider {
    /// A token this close to its `exp` is replaced before it is sent: a call must not arrive with one just expired.
    public static let refreshMargin: TimeInterval = 30

    private let fetch: @Sendable (String) async throws -> String
    private let now: @Sendable () -> Date
    private var held: (appUserID: String, token: String, expiresAt: Date?)?
    /// Set once the server refused an anonymous ID's call for want of a token.
    private var anonymousIDsNeedTokens = false
    /// The fetch under way and whose token it is, which concurrent callers for that user share.
    private var fetching: (appUserID: String, task: Task<String, any Error>)?

    /// - Parameter fetch: asks the app's backend for a token for the given app user ID (`sub` that ID, `aud` the
    ///   tenant ID); the backend vouches only for the user signed in with it.
    public init(now: @escaping @Sendable () -> Date = { Date() }, fetch: @escaping @Sendable (String) async throws -> String) {
        self.fetch = fetch
        self.now = now
    }

    /// The token to send with a call about `appUserID`; nil for an anonymous ID while the tenant needs none.
    public func token(for appUserID: String) async throws -> String? {
        if AnonymousID.isAnonymous(appUserID), !anonymousIDsNeedTokens { return nil }
        if let held, held.appUserID == appUserID,
            held.expiresAt.map({ $0.timeIntervalSince(now()) > Self.refreshMargin }) ?? true
        {
            return held.token
        }
        if let fetching, fetching.appUserID == appUserID { return try await fetching.task.value }
        let task = Task { [fetch] in try await fetch(appUserID) }
        fetching = (appUserID, task)
        defer { if fetching?.appUserID == appUserID { fetching = nil } }
        let token = try await task.value
        held = (appUserID, token, Self.expiry(of: token))
        return token
    }

    /// The server refused the token sent for `appUserID` (expired, for another user, or none sent for an anonymous
    /// ID): the next call asks the app's backend again.
    public func refused(for appUserID: String) {
        if held?.appUserID == appUserID { held = nil }
        if AnonymousID.isAnonymous(appUserID) { anonymousIDsNeedTokens = true }
    }

    /// The token's `exp`, read without verifying it (only the tenant's backend and the server verify); nil when it
    /// cannot be read, and the token is used until the server refuses it.
    static func expiry(of token: String) -> Date? {
        guard let exp = CompactToken(token)?.claims?["exp"]?.int64 else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(exp))
    }
}

extension EntitlementsError {
    /// The server refused the call's user token (missing, expired, for another user): a fresh token may pass.
    var refusesUserToken: Bool { code == .unauthenticated && message.hasPrefix("user token") }
}
