/// Where the SDK says what it does: connections, reconnects, forwarded purchases, errors. Messages name users and
/// products but never a key or a signed payload, so an app may send them to its own logs as they are.
public struct EntitlementsLog: Sendable {
    public enum Level: Int, Sendable, Comparable {
        case debug, info, warning, error
        public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    public var minimumLevel: Level
    private let handler: @Sendable (Level, String) -> Void

    public init(minimumLevel: Level = .info, handler: @escaping @Sendable (Level, String) -> Void) {
        self.minimumLevel = minimumLevel
        self.handler = handler
    }

    /// Says nothing (the default).
    public static let silent = EntitlementsLog(minimumLevel: .error) { _, _ in }

    func callAsFunction(_ level: Level, _ message: @autoclosure () -> String) {
        if level >= minimumLevel { handler(level, message()) }
    }
}
