/// A connection's open streams by ID, in place of a dictionary, which hashes every ID with SipHash: about 700
/// instructions of each Health Check went to the streams dictionary.
///
/// Open addressing with linear probing: a stream's first slot is its ID halved (clients number their streams 1, 3,
/// 5, …, so the open ones, a window of recent IDs, take consecutive slots and rarely collide). The table stays at
/// most half full; removal shifts the rest of a probe run back, so no tombstones pile up.
struct StreamTable {
    private var slots = [ServerStream?](repeating: nil, count: 16)
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    private var mask: Int { slots.count - 1 }

    private func home(of id: Int32) -> Int { Int(id >> 1) & mask }

    private func index(of id: Int32) -> Int? {
        var index = home(of: id)
        while let stream = slots[index] {
            if stream.id == id { return index }
            index = (index + 1) & mask
        }
        return nil
    }

    subscript(id: Int32) -> ServerStream? {
        index(of: id).flatMap { slots[$0] }
    }

    /// Adds a stream whose ID is not in the table.
    mutating func insert(_ stream: ServerStream) {
        if (count + 1) * 2 > slots.count { grow() }
        var index = home(of: stream.id)
        while slots[index] != nil { index = (index + 1) & mask }
        slots[index] = stream
        count += 1
    }

    mutating func remove(_ id: Int32) -> ServerStream? {
        guard var hole = index(of: id) else { return nil }
        let removed = slots[hole]
        slots[hole] = nil
        count -= 1
        // Each later stream of the run moves into the hole unless its first slot lies after the hole (cyclically):
        // a lookup must never meet an empty slot before the stream it looks for.
        var probe = (hole + 1) & mask
        while let stream = slots[probe] {
            if (probe - home(of: stream.id)) & mask >= (probe - hole) & mask {
                slots[hole] = stream
                slots[probe] = nil
                hole = probe
            }
            probe = (probe + 1) & mask
        }
        return removed
    }

    /// The streams, in no particular order: a copy, so the caller may change the table while it goes through them.
    var streams: [ServerStream] { slots.compactMap { $0 } }

    mutating func removeAll() {
        slots = [ServerStream?](repeating: nil, count: 16)
        count = 0
    }

    private mutating func grow() {
        let streams = streams
        slots = [ServerStream?](repeating: nil, count: slots.count * 2)
        count = 0
        for stream in streams { insert(stream) }
    }
}
