@testable import HTTP2Transport
import RPCCore
import Testing

/// One ``HeaderBlock`` serves every request head of a connection, reusing the previous head's strings and metadata
/// where the new head repeats them: whatever it reuses, each head must read exactly as a fresh block would.
struct HeaderBlockTests {
    typealias Field = (name: String, value: String)

    private static let head: [Field] = [
        (":method", "POST"), (":scheme", "http"), (":path", "/a.B/C"), (":authority", "example.com:443"),
        ("content-type", "application/grpc"), ("authorization", "Bearer pk_" + String(repeating: "a", count: 64)),
        ("x-custom", "one"), ("trace-bin", "AAEC"),
    ]

    private static func receive(_ fields: [Field], into block: inout HeaderBlock) {
        block.reset()
        for (name, value) in fields {
            var name = name
            var value = value
            name.withUTF8 { name in
                value.withUTF8 { value in
                    block.add(name: UnsafeRawBufferPointer(name), value: UnsafeRawBufferPointer(value), limit: .max)
                }
            }
        }
    }

    private static func fresh(_ fields: [Field]) -> HeaderBlock {
        var block = HeaderBlock()
        receive(fields, into: &block)
        return block
    }

    private static func expectSame(_ reused: inout HeaderBlock, _ fields: [Field]) throws {
        var fresh = fresh(fields)
        #expect(reused.method == fresh.method)
        #expect(reused.path == fresh.path)
        #expect(reused.authority == fresh.authority)
        #expect(reused.fields.map(\.name) == fresh.fields.map(\.name))
        #expect(reused.fields.map(\.value) == fresh.fields.map(\.value))
        let reusedMetadata = try reused.callMetadata()
        let freshMetadata = try fresh.callMetadata()
        #expect(reusedMetadata.entries.map(\.key) == freshMetadata.entries.map(\.key))
        #expect(reusedMetadata.entries.map(\.value) == freshMetadata.entries.map(\.value))
    }

    @Test func aRepeatedHeadReadsAsAFreshOne() throws {
        var block = HeaderBlock()
        for _ in 0..<3 {
            Self.receive(Self.head, into: &block)
            try Self.expectSame(&block, Self.head)
        }
    }

    /// Each way a head can differ from the one before: a value, a name, a field more or fewer, the pseudo-headers.
    @Test(arguments: [
        { (fields: inout [Field]) in fields[5].value = "Bearer pk_" + String(repeating: "b", count: 64) },
        { (fields: inout [Field]) in fields[6].name = "x-other" },
        { (fields: inout [Field]) in fields.append(("x-more", "two")) },
        { (fields: inout [Field]) in fields.removeLast() },
        { (fields: inout [Field]) in fields.remove(at: 6) },
        { (fields: inout [Field]) in fields[0].value = "GET"; fields[2].value = "/a.B/D"; fields[3].value = "other:1" },
        { (fields: inout [Field]) in fields[7].value = "AAED" },
    ] as [@Sendable (inout [Field]) -> Void])
    func aChangedHeadReadsAsAFreshOne(change: @Sendable (inout [Field]) -> Void) throws {
        var changed = Self.head
        change(&changed)
        var block = HeaderBlock()
        Self.receive(Self.head, into: &block)
        _ = try block.callMetadata()
        Self.receive(changed, into: &block)
        try Self.expectSame(&block, changed)
        // And back: the previous head is now the changed one.
        Self.receive(Self.head, into: &block)
        try Self.expectSame(&block, Self.head)
    }

    /// Metadata is reused only from a head whose metadata was made: a head that failed to make it (bad base64)
    /// leaves nothing behind for the next, identical head to reuse.
    @Test func metadataThatFailedIsNotReused() throws {
        var bad = Self.head
        bad[7].value = "not base64!"
        var block = HeaderBlock()
        Self.receive(bad, into: &block)
        #expect(throws: RPCError.self) { try block.callMetadata() }
        Self.receive(bad, into: &block)
        #expect(throws: RPCError.self) { try block.callMetadata() }
        Self.receive(Self.head, into: &block)
        try Self.expectSame(&block, Self.head)
    }

    /// A head whose metadata nobody asked for (a plain HTTP request) cannot lend the next one stale metadata.
    @Test func metadataSkipsAHeadThatDidNotMakeIt() throws {
        var other = Self.head
        other[6].value = "two"
        var block = HeaderBlock()
        Self.receive(Self.head, into: &block)
        _ = try block.callMetadata()
        Self.receive(other, into: &block)
        Self.receive(other, into: &block)
        try Self.expectSame(&block, other)
    }
}
