extension ServerContext {
    /// The call's deadline is already past. A transport checks it before it starts a handler, so that a call whose
    /// `grpc-timeout` was spent on the way in (a few nanoseconds) ends with DEADLINE_EXCEEDED, and runs nothing.
    public var deadlineHasPassed: Bool {
        guard let deadline else { return false }
        return deadline <= .now
    }
}
