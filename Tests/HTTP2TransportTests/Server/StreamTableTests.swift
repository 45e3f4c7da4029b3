@testable import HTTP2Transport
import Testing

/// The stream table must answer exactly as a dictionary would, whatever the order of opening and closing, including
/// IDs that share a first slot, runs that wrap around the end of the table, and growth.
struct StreamTableTests {
    private struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    private static func expectSame(_ table: StreamTable, _ model: [Int32: ServerStream], probing ids: [Int32]) {
        #expect(table.count == model.count)
        #expect(table.isEmpty == model.isEmpty)
        for id in ids { #expect(table[id] === model[id], "stream \(id)") }
        #expect(Set(table.streams.map(\.id)) == Set(model.keys))
    }

    /// Client-like: IDs 1, 3, 5, … opened in order, closed in any order, a window of them open at once.
    @Test(arguments: [1, 7, 40, 300])
    func ascendingOddIDsClosedInAnyOrder(window: Int) {
        var random = Generator(state: UInt64(window))
        var table = StreamTable()
        var model: [Int32: ServerStream] = [:]
        var next: Int32 = 1
        for _ in 0..<3000 {
            if model.count < window, Bool.random(using: &random) || model.isEmpty {
                let stream = ServerStream(id: next)
                table.insert(stream)
                model[next] = stream
                next += 2
            } else {
                let id = model.keys.randomElement(using: &random)!
                #expect(table.remove(id) === model.removeValue(forKey: id))
            }
        }
        Self.expectSame(table, model, probing: Array(stride(from: -1, through: next + 2, by: 1)))
    }

    /// IDs chosen to collide: the same first slot at every table size up to 1024, so every lookup and removal walks
    /// a run, and removals from its middle must shift the rest back.
    @Test func collidingIDsStayReachable() {
        var random = Generator(state: 7)
        var table = StreamTable()
        var model: [Int32: ServerStream] = [:]
        let ids = (0..<200).map { Int32($0 * 2048 + 5) }
        for round in 0..<20 {
            for id in ids.shuffled(using: &random) where model[id] == nil && Bool.random(using: &random) {
                let stream = ServerStream(id: id)
                table.insert(stream)
                model[id] = stream
            }
            for id in ids.shuffled(using: &random).prefix(round * 5) {
                #expect(table.remove(id) === model.removeValue(forKey: id))
            }
            Self.expectSame(table, model, probing: ids + [1, 3, 2049])
        }
    }

    /// A run that starts near the end of the table wraps to its start; removing from it keeps the wrapped part
    /// reachable.
    @Test func runsThatWrapAroundTheEnd() {
        var table = StreamTable()
        var model: [Int32: ServerStream] = [:]
        // First slots 15 and 14 of the 16-slot table, several IDs each.
        let ids: [Int32] = [31, 63, 29, 95, 61]
        for id in ids {
            let stream = ServerStream(id: id)
            table.insert(stream)
            model[id] = stream
        }
        for id in ids {
            #expect(table.remove(id) === model.removeValue(forKey: id))
            Self.expectSame(table, model, probing: ids)
        }
    }

    @Test func removingWhatIsNotThereChangesNothing() {
        var table = StreamTable()
        let stream = ServerStream(id: 3)
        table.insert(stream)
        #expect(table.remove(5) == nil)
        #expect(table.remove(35) == nil)
        #expect(table[3] === stream && table.count == 1)
        table.removeAll()
        #expect(table.isEmpty && table[3] == nil)
    }
}
