import Synchronization

/// What the interop handlers observed, keyed by the cancellation token the client chose.
///
/// The interop suite cannot see inside the server, so a handler that runs under a token records here whether it
/// saw cancellation (task cancellation, a write that threw) and when it returned; `GetCancellation` reads it back.
public final class InteropCancellationRegistry: Sendable {
    public struct Entry: Sendable, Hashable {
        public var cancelled = false
        public var finished = false
    }

    /// Oldest tokens are dropped beyond this many, so a long-running test server does not grow without bound.
    private static let capacity = 10_000

    private struct State {
        var entries: [String: Entry] = [:]
        var order: [String] = []
    }

    private let state = Mutex(State())

    public init() {}

    /// What the handler registered under `token` observed; nil when no handler ran under it (yet).
    public func entry(for token: String) -> Entry? {
        state.withLock { $0.entries[token] }
    }

    func update(_ token: String, _ change: (inout Entry) -> Void) {
        state.withLock { state in
            if state.entries[token] == nil {
                state.order.append(token)
                if state.order.count > Self.capacity {
                    let dropped = state.order.removeFirst()
                    state.entries[dropped] = nil
                }
            }
            change(&state.entries[token, default: Entry()])
        }
    }
}

/// One call's view of the registry. The token may only be learnt after the call started (the first request of a
/// bidirectional stream), so observations are kept locally and copied into the registry once it is known.
final class InteropCallTracker: Sendable {
    private struct State {
        var token: String?
        var entry = InteropCancellationRegistry.Entry()
    }

    private let registry: InteropCancellationRegistry
    private let state = Mutex(State())

    init(registry: InteropCancellationRegistry, token: String?) {
        self.registry = registry
        bind(token)
    }

    /// Names the call; the first non-empty token wins.
    func bind(_ token: String?) {
        guard let token, !token.isEmpty else { return }
        let entry: InteropCancellationRegistry.Entry? = state.withLock { state in
            guard state.token == nil else { return nil }
            state.token = token
            return state.entry
        }
        if let entry { registry.update(token) { $0 = entry } }
    }

    func markCancelled() { change { $0.cancelled = true } }

    func markFinished() { change { $0.finished = true } }

    private func change(_ body: @Sendable (inout InteropCancellationRegistry.Entry) -> Void) {
        let token: String? = state.withLock { state in
            body(&state.entry)
            return state.token
        }
        if let token { registry.update(token, body) }
    }
}
