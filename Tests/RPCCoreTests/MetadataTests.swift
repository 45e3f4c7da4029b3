import RPCCore
import Testing

@Suite struct MetadataTests {
    @Test func keysAreLoweredAndOrderIsKept() {
        var metadata = Metadata()
        #expect(metadata.isEmpty)
        metadata.addString("one", forKey: "X-Request-ID")
        metadata.addBinary([1, 2], forKey: "Trace-BIN")
        metadata.add(.string("three"), forKey: "MiXeD")
        metadata.addString("four", forKey: "x-request-id")
        #expect(!metadata.isEmpty)
        #expect(metadata.count == 4)
        #expect(metadata.entries.map(\.key) == ["x-request-id", "trace-bin", "mixed", "x-request-id"])
        #expect(metadata.entries.map(\.value) == [.string("one"), .binary([1, 2]), .string("three"), .string("four")])
        #expect(Array(metadata).map(\.key) == ["x-request-id", "trace-bin", "mixed", "x-request-id"], "Sequence")
    }

    @Test func pairInitializerLowersKeysAndKeepsValues() {
        let metadata = Metadata([("A", "Value With Case"), ("b", "2"), ("A", "again")])
        #expect(metadata.entries.map(\.key) == ["a", "b", "a"])
        #expect(metadata.entries.map(\.value) == [.string("Value With Case"), .string("2"), .string("again")])
    }

    @Test func appendContentsOfKeepsOrderAndDuplicates() {
        var metadata = Metadata([("a", "1")])
        var other = Metadata([("b", "2")])
        other.addBinary([3], forKey: "c-bin")
        metadata.append(contentsOf: other)
        metadata.append(contentsOf: Metadata([("a", "4")]))
        metadata.append(contentsOf: Metadata())
        #expect(metadata.entries.map(\.key) == ["a", "b", "c-bin", "a"])
        #expect(metadata.entries.map(\.value) == [.string("1"), .string("2"), .binary([3]), .string("4")])
        #expect(other.count == 2, "the source is unchanged")
    }

    @Test func stringSubscriptReturnsTheFirstStringValue() {
        var metadata = Metadata()
        metadata.addBinary([9], forKey: "k")
        metadata.addString("first", forKey: "k")
        metadata.addString("second", forKey: "k")
        metadata.addString("other", forKey: "j")
        #expect(metadata[string: "k"] == "first", "binary entries are skipped")
        #expect(metadata[string: "j"] == "other")
        #expect(metadata[string: "missing"] == nil)
        #expect(metadata[string: "kk"] == nil)
    }

    @Test func binarySubscriptReturnsEveryBinaryValueInOrder() {
        var metadata = Metadata()
        metadata.addBinary([1], forKey: "blob-bin")
        metadata.addString("text", forKey: "blob-bin")
        metadata.addBinary([], forKey: "blob-bin")
        metadata.addBinary([2, 3], forKey: "BLOB-BIN")
        metadata.addBinary([4], forKey: "other-bin")
        #expect(metadata[binary: "blob-bin"] == [[1], [], [2, 3]])
        #expect(metadata[binary: "other-bin"] == [[4]])
        #expect(metadata[binary: "missing-bin"] == [])
    }

    @Test func equalityAndHashFollowTheOrderedEntries() {
        let a = Metadata([("x", "1"), ("y", "2")])
        let b = Metadata([("X", "1"), ("Y", "2")])
        let reordered = Metadata([("y", "2"), ("x", "1")])
        var binary = Metadata()
        binary.addBinary(Array("1".utf8), forKey: "x")
        binary.addString("2", forKey: "y")
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a != reordered)
        #expect(a != binary, "a string and a binary value with the same bytes differ")
        #expect(a != Metadata([("x", "1")]))
        #expect(Metadata() == Metadata([]))
        #expect(Set([a, b, reordered]).count == 2)
    }

    @Test(arguments: ["a", "x-request-id", "trace-bin", "under_score", "dot.ted", "0123456789", "abcdefghijklmnopqrstuvwxyz",
                      "-leading", "grpc", "grpcx-foo", "my-grpc-key"])
    func validCustomKeys(key: String) {
        #expect(Metadata.isValidCustomKey(key))
    }

    @Test(arguments: ["", "X-Request-ID", "A", "grpc-status", "grpc-foo", "grpc-", ":path", ":authority", ":status",
                      "has space", "slash/key", "colon:key", "tab\tkey", "é", "key\u{0}", "key=value", "key,other", "ключ"])
    func invalidCustomKeys(key: String) {
        #expect(!Metadata.isValidCustomKey(key))
    }

    @Test(arguments: [":path", ":status", ":authority", "grpc-status", "grpc-message", "grpc-timeout", "grpc-whatever",
                      "content-type", "te", "user-agent", "content-length"])
    func transportHeaders(key: String) {
        #expect(Metadata.isTransportHeader(key))
    }

    @Test(arguments: ["x-request-id", "authorization", "content-type-x", "tea", "grpc", "user-agent-bin", "path", "trace-bin"])
    func nonTransportHeaders(key: String) {
        #expect(!Metadata.isTransportHeader(key))
    }

    /// Outgoing metadata is filtered by `isValidCustomKey` alone (HeaderList.add in HTTP2Transport). Were these accepted,
    /// a handler's `sendHeaders`/trailers could emit a second `content-type`, a `te` other than "trailers", or
    /// HTTP/2 connection-specific fields that RFC 9113 §8.2.2 makes the whole response malformed.
    @Test(
        "isValidCustomKey refuses headers reserved by HTTP/2 and gRPC",
        arguments: ["content-type", "te", "content-length", "user-agent",
                    "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade"]
    )
    func reservedHeadersAreNotCustomKeys(key: String) {
        #expect(!Metadata.isValidCustomKey(key), "'\(key)' is reserved but accepted as custom metadata")
    }
}
