import Foundation

/// The ID the SDK gives a user nobody signed in as: `$anon:` and a random UUID, kept in the cache so the same
/// device stays the same customer until `identify` merges it into an account or `logOut` starts a new one.
public enum AnonymousID {
    public static let prefix = "$anon:"

    public static func generate() -> String { prefix + UUID().uuidString.lowercased() }

    public static func isAnonymous(_ appUserID: String) -> Bool { appUserID.hasPrefix(prefix) }
}
