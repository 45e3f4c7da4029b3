/// Loop-confined timers: a binary min-heap of deadlines; cancelled entries are dropped when they surface.
package struct TimerHeap {
    package typealias ID = UInt64

    private var heap: [(deadline: ContinuousClock.Instant, id: ID)] = []
    private var bodies: [ID: () -> Void] = [:]
    private var nextID: ID = 1

    mutating func schedule(at deadline: ContinuousClock.Instant, _ body: @escaping () -> Void) -> ID {
        let id = nextID
        nextID += 1
        bodies[id] = body
        heap.append((deadline, id))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].deadline < heap[parent].deadline else { break }
            heap.swapAt(child, parent)
            child = parent
        }
        return id
    }

    mutating func cancel(_ id: ID) {
        bodies[id] = nil
        // Cancelled entries normally surface and vanish; rebuild when they dominate so the heap stays bounded.
        if heap.count > 1024, heap.count > 4 * bodies.count {
            let live = heap.filter { bodies[$0.id] != nil }.sorted { $0.deadline < $1.deadline }
            heap = live
        }
    }

    /// The epoll timeout until the earliest live timer, -1 when there is none.
    mutating func millisecondsUntilNext(now: ContinuousClock.Instant) -> Int32 {
        while let first = heap.first, bodies[first.id] == nil { popFirst() }
        guard let first = heap.first else { return -1 }
        let remaining = now.duration(to: first.deadline)
        if remaining <= .zero { return 0 }
        let (seconds, attoseconds) = remaining.components
        // Scaled only where it fits epoll's Int32: a timer further away (the largest grpc-timeout is 99999999 h)
        // waits in turns of Int32.max milliseconds.
        guard seconds <= Int64(Int32.max) / 1000 else { return Int32.max }
        return Int32(clamping: seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    }

    /// Removes the timers due at `now` and returns their bodies, to run after the heap is no longer being
    /// mutated: a body may schedule or cancel timers.
    mutating func takeDue(now: ContinuousClock.Instant) -> [() -> Void] {
        var due: [() -> Void] = []
        while let first = heap.first, first.deadline <= now {
            popFirst()
            if let body = bodies.removeValue(forKey: first.id) { due.append(body) }
        }
        return due
    }

    private mutating func popFirst() {
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].deadline < heap[smallest].deadline { smallest = left }
            if right < heap.count, heap[right].deadline < heap[smallest].deadline { smallest = right }
            if smallest == parent { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
