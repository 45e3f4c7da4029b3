/// One value an observer sees: the status now and how it differs from the one before (nil for the first value an
/// observer gets, which is the latest known).
public struct StatusUpdate: Sendable, Hashable {
    public var snapshot: StatusSnapshot
    public var change: StatusChange?

    public init(snapshot: StatusSnapshot, change: StatusChange?) {
        self.snapshot = snapshot
        self.change = change
    }
}
