import CSystemShims
import Glibc
import Synchronization

/// Something an event loop wakes when its file descriptor is ready.
package protocol FileEventHandler: AnyObject {
    func handleEvent(readable: Bool, writable: Bool, hangup: Bool)
}

/// Work that must run once the current batch of events is handled, such as flushing a connection's output.
package protocol EndOfTickTask: AnyObject {
    func runAtEndOfTick()
}

/// One thread, one epoll set. Everything registered with a loop is touched by that thread only.
///
/// Other threads hand it work with ``execute(_:)``; that is the only thread-safe entry point besides ``inEventLoop``.
package final class EventLoop: @unchecked Sendable {
    private let epollFD: Int32
    private let wakeFD: Int32
    private let pending = Mutex<(work: [@Sendable () -> Void], wakePending: Bool)>(([], false))
    private let thread = Mutex<pthread_t?>(nil)
    private let stopRequested = Atomic<Bool>(false)

    // Loop-confined state, unchecked for exclusive access like a connection's: the compiler cannot prove it across
    // the modules of the handlers the loop calls.
    @exclusivity(unchecked) private var handlers: [Int32: any FileEventHandler] = [:]
    @exclusivity(unchecked) private var timers = TimerHeap()
    @exclusivity(unchecked) private var endOfTick: [any EndOfTickTask] = []
    @exclusivity(unchecked) private var endOfTickIDs: Set<ObjectIdentifier> = []
    /// A read buffer shared by every connection of this loop: reads are handled one at a time.
    @exclusivity(unchecked) package var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)

    /// The loop's position among its server's loops: the shard its metrics go to.
    package let index: Int

    package init(index: Int = 0) throws(TransportError) {
        self.index = index
        // OpenSSL writes to sockets with write(2): a peer that vanished must be an error, not a process-killing signal.
        signal(SIGPIPE, SIG_IGN)
        epollFD = cshim_epoll_create()
        guard epollFD >= 0 else { throw .system("epoll_create1", errno) }
        wakeFD = cshim_eventfd()
        guard wakeFD >= 0 else { throw .system("eventfd", errno) }
        _ = cshim_epoll_ctl(epollFD, Int32(CSHIM_EPOLL_CTL_ADD), wakeFD, UInt32(CSHIM_EPOLLIN))
    }

    deinit {
        close(epollFD)
        close(wakeFD)
    }

    package var inEventLoop: Bool {
        thread.withLock { owner in owner.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    package func assertInEventLoop(file: StaticString = #fileID, line: UInt = #line) {
        assert(inEventLoop, "touched off its event loop", file: file, line: line)
    }

    /// Runs `work` on the loop's thread soon. Wakes the loop only when it may be sleeping.
    package func execute(_ work: @escaping @Sendable () -> Void) {
        let needsWake = pending.withLock { pending in
            pending.work.append(work)
            defer { pending.wakePending = true }
            return !pending.wakePending
        }
        if needsWake {
            var one: UInt64 = 1
            _ = write(wakeFD, &one, 8)
        }
    }

    // MARK: Loop-confined API

    package func register(_ fd: Int32, handler: any FileEventHandler, readable: Bool = true, writable: Bool = false) {
        assertInEventLoop()
        handlers[fd] = handler
        _ = cshim_epoll_ctl(epollFD, Int32(CSHIM_EPOLL_CTL_ADD), fd, Self.mask(readable: readable, writable: writable))
    }

    /// Registers a descriptor that several loops watch (the listening socket): each readiness wakes one loop only.
    package func registerShared(_ fd: Int32, handler: any FileEventHandler) {
        assertInEventLoop()
        handlers[fd] = handler
        _ = cshim_epoll_ctl(epollFD, Int32(CSHIM_EPOLL_CTL_ADD), fd, UInt32(CSHIM_EPOLLIN) | UInt32(CSHIM_EPOLLEXCLUSIVE))
    }

    package func setInterest(_ fd: Int32, readable: Bool, writable: Bool) {
        assertInEventLoop()
        _ = cshim_epoll_ctl(epollFD, Int32(CSHIM_EPOLL_CTL_MOD), fd, Self.mask(readable: readable, writable: writable))
    }

    package func unregister(_ fd: Int32) {
        assertInEventLoop()
        handlers[fd] = nil
        _ = cshim_epoll_ctl(epollFD, Int32(CSHIM_EPOLL_CTL_DEL), fd, 0)
    }

    @discardableResult
    package func scheduleTimer(after delay: Duration, _ body: @escaping () -> Void) -> TimerHeap.ID {
        assertInEventLoop()
        return timers.schedule(at: .now + delay, body)
    }

    @discardableResult
    package func scheduleTimer(at deadline: ContinuousClock.Instant, _ body: @escaping () -> Void) -> TimerHeap.ID {
        assertInEventLoop()
        return timers.schedule(at: deadline, body)
    }

    package func cancelTimer(_ id: TimerHeap.ID?) {
        assertInEventLoop()
        if let id { timers.cancel(id) }
    }

    package func runAtEndOfTick(_ task: any EndOfTickTask) {
        assertInEventLoop()
        if endOfTickIDs.insert(ObjectIdentifier(task)).inserted { endOfTick.append(task) }
    }

    /// Starts the loop on a new thread.
    package func start(name: String) {
        let box = Unmanaged.passRetained(self)
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        var handle = pthread_t()
        pthread_create(&handle, &attributes, { argument in
            let loop = Unmanaged<EventLoop>.fromOpaque(argument!).takeRetainedValue()
            loop.thread.withLock { $0 = pthread_self() }
            loop.run()
            return nil
        }, box.toOpaque())
        pthread_attr_destroy(&attributes)
        pthread_detach(handle)
    }

    /// Asks the loop to return once its current tick ends; handlers still registered are dropped.
    package func stop() {
        stopRequested.store(true, ordering: .releasing)
        execute {}
    }

    private func run() {
        var fds = [Int32](repeating: 0, count: 256)
        var events = [UInt32](repeating: 0, count: 256)
        while !stopRequested.load(ordering: .acquiring) {
            let timeout = timers.millisecondsUntilNext(now: .now)
            let count = cshim_epoll_wait(epollFD, &fds, &events, 256, timeout)
            if count < 0, errno != EINTR { break }
            for index in 0..<max(0, Int(count)) {
                let fd = fds[index]
                if fd == wakeFD {
                    var value: UInt64 = 0
                    _ = read(wakeFD, &value, 8)
                    continue
                }
                guard let handler = handlers[fd] else { continue }
                let flags = events[index]
                let readableMask = UInt32(CSHIM_EPOLLIN | CSHIM_EPOLLHUP | CSHIM_EPOLLERR)
                handler.handleEvent(
                    readable: flags & readableMask != 0,
                    writable: flags & UInt32(CSHIM_EPOLLOUT) != 0,
                    hangup: flags & UInt32(CSHIM_EPOLLERR) != 0
                )
            }
            runPendingWork()
            for body in timers.takeDue(now: .now) { body() }
            runEndOfTick()
        }
        handlers.removeAll()
        // Timer closures hold their connections strongly; dropping them lets a stopped loop's connections go.
        timers = TimerHeap()
    }

    private func runPendingWork() {
        while true {
            let work = pending.withLock { pending in
                defer {
                    pending.work.removeAll(keepingCapacity: true)
                    pending.wakePending = false
                }
                return pending.work
            }
            if work.isEmpty { return }
            for item in work { item() }
        }
    }

    private func runEndOfTick() {
        while !endOfTick.isEmpty {
            let tasks = endOfTick
            endOfTick.removeAll(keepingCapacity: true)
            endOfTickIDs.removeAll(keepingCapacity: true)
            for task in tasks { task.runAtEndOfTick() }
        }
    }

    private static func mask(readable: Bool, writable: Bool) -> UInt32 {
        (readable ? UInt32(CSHIM_EPOLLIN) | UInt32(CSHIM_EPOLLRDHUP) : 0) | (writable ? UInt32(CSHIM_EPOLLOUT) : 0)
    }
}

/// A value owned by one event loop that may travel through other threads but is only touched on its loop.
package struct LoopBound<Value: AnyObject>: @unchecked Sendable {
    package let loop: EventLoop
    private let _value: Value

    package init(_ value: Value, loop: EventLoop) {
        self.loop = loop
        self._value = value
    }

    package var value: Value {
        loop.assertInEventLoop()
        return _value
    }

    /// Runs `body` with the value on its loop.
    package func execute(_ body: @escaping @Sendable (Value) -> Void) {
        let this = self
        loop.execute { body(this.value) }
    }
}
