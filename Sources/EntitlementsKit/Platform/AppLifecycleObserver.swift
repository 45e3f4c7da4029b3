#if canImport(UIKit) && !os(watchOS)
    public import UIKit
    #if canImport(Network)
        import Network
    #endif

    /// Tells an ``Entitlements`` when the app leaves and returns to the foreground (UIKit's notifications) and when
    /// the network comes back (`NWPathMonitor`), so the stream closes in the background, reopens and resumes in the
    /// foreground with a `SyncStatus`, and reconnects at once when the device is online again. Keep it alive as long
    /// as the SDK.
    @MainActor
    public final class AppLifecycleObserver {
        // Set in `init`, read only by `deinit`, which has the object to itself.
        nonisolated(unsafe) private var tokens: [any NSObjectProtocol] = []
        #if canImport(Network)
            nonisolated(unsafe) private let monitor = NWPathMonitor()
        #endif

        public init(_ entitlements: Entitlements) {
            let center = NotificationCenter.default
            tokens.append(
                center.addObserver(forName: UIApplication.didEnterBackgroundNotification, object: nil, queue: .main) { _ in
                    Task { await entitlements.enteredBackground() }
                })
            tokens.append(
                center.addObserver(forName: UIApplication.willEnterForegroundNotification, object: nil, queue: .main) { _ in
                    Task { await entitlements.enteredForeground() }
                })
            #if canImport(Network)
                let changes = PathChanges()
                monitor.pathUpdateHandler = { path in
                    if changes.isNewConnectivity(path) { Task { await entitlements.networkChanged() } }
                }
                monitor.start(queue: DispatchQueue(label: "EntitlementsKit.network"))
            #endif
        }

        deinit {
            for token in tokens { NotificationCenter.default.removeObserver(token) }
            #if canImport(Network)
                monitor.cancel()
            #endif
        }
    }

    #if canImport(Network)
        /// Tells a path that brings the device online, or onto other interfaces, from the monitor's first report and
        /// from repeats of the same path, which need no reconnect.
        private final class PathChanges: @unchecked Sendable {
            private let lock = NSLock()
            private var last: (satisfied: Bool, interfaces: [String])?

            func isNewConnectivity(_ path: NWPath) -> Bool {
                let now = (satisfied: path.status == .satisfied, interfaces: path.availableInterfaces.map(\.name))
                return lock.withLock {
                    defer { last = now }
                    guard let last, now.satisfied else { return false }
                    return !last.satisfied || last.interfaces != now.interfaces
                }
            }
        }
    #endif
#endif
