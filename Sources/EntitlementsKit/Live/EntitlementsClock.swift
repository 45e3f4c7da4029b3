public import Foundation

/// The time the SDK reads and waits on; tests pass their own to drive backoff and expiry without waiting.
public struct EntitlementsClock: Sendable {
    public var now: @Sendable () -> Date
    public var sleep: @Sendable (Duration) async throws -> Void

    public init(now: @escaping @Sendable () -> Date, sleep: @escaping @Sendable (Duration) async throws -> Void) {
        self.now = now
        self.sleep = sleep
    }

    public static let system = EntitlementsClock(now: { Date() }, sleep: { try await Task.sleep(for: $0) })
}
