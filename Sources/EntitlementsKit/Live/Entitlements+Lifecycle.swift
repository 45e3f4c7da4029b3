extension Entitlements {
    /// The app went to the background: the stream closes (the system would cut it anyway).
    public func enteredBackground() {
        inForeground = false
        closeStream()
    }

    /// The app came back: the local source is read again, the server is asked (`SyncStatus`, which also sends
    /// again purchases that could not be forwarded), and the stream reopens from the version that answer had.
    public func enteredForeground() async {
        inForeground = true
        await rereadLocal()
        do { try await refresh() } catch { log(.warning, "SyncStatus on return to the foreground failed: \(error)") }
        await forwardLocalNotShown()
        openStreamIfWanted()
    }

    /// The platform reports the network back or changed: a stream waiting to reconnect tries now, and an open one is
    /// reopened (from the last version seen), since its connection may be on the path that went away and native gRPC
    /// would not notice a dead one until the app returns to the foreground.
    public func networkChanged() async {
        if let wait = reconnectWait {
            wait.cancel()
        } else if stream != nil {
            closeStream()
            openStreamIfWanted()
        }
        await forwardUnforwarded()
    }
}
