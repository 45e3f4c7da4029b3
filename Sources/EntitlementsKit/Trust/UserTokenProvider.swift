public import Foundation
import Encodings

/// Where the SDK gets the user token (a short-lived JWT from the app's own backend proving the app user ID) for a
/// tenant whose `user_tokens` are required: the app's closure, called when there is no token yet or the one held
/// expires within ``refreshMargin``, and again when the server refuses the one held. Transports send the token as the
/// `entitlements-user-token` metadata of every call. The SDK never logs a token or puts one in an error or the cache.
public actor UserTokenProvider {
    /// A token this close to its `exp` is replaced before it is sent: a call must not arrive with one just expired.
    public static let refreshMargin: TimeInterval = 30

    private let fetch: @Sendable () async throws -> String
    private let now: @Sendable () -> Date
    private var held: (token: String, expiresAt: Date?)?
    /// The fetch under way, which concurrent callers share.
    private var fetching: Task<String, any Error>?

    /// - Parameter fetch: asks the app's backend for a token for the signed-in user (`sub` the app user ID, `aud`
    ///   the tenant ID).
    public init(now: @escaping @Sendable () -> Date = { Date() }, fetch: @escaping @Sendable () async throws -> String) {
        self.fetch = fetch
        self.now = now
    }

    /// The token to send now.
    public func token() async throws -> String {
        if let held, held.expiresAt.map({ $0.timeIntervalSince(now()) > Self.refreshMargin }) ?? true {
            return held.token
        }
        if let fetching { return try await fetching.value }
        let task = Task { try await fetch() }
        fetching = task
        defer { fetching = nil }
        let token = try await task.value
        held = (token, Self.expiry(of: token))
        return token
    }

    /// Forgets the token held: the server refused it (expired, or the user changed), so the next call fetches one.
    public func invalidate() {
        held = nil
    }

    /// The token's `exp`, read without verifying it (only the tenant's backend and the server verify); nil when it
    /// cannot be read, and the token is used until the server refuses it.
    static func expiry(of token: String) -> Date? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64.decode(String(parts[1]), alphabet: .url, padding: .forbidden),
            let claims = try? JSONReader.read(JSONValue.self, from: payload), let exp = claims["exp"]?.int64
        else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(exp))
    }
}

extension EntitlementsError {
    /// The server refused the call's user token (missing, expired, for another user): a fresh token may pass.
    var refusesUserToken: Bool { code == .unauthenticated && message.hasPrefix("user token") }
}
