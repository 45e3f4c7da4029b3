import CNGHTTP2
@testable import HTTP2Transport
import Testing

/// ``RequestFieldRules`` stands in for nghttp2's HTTP messaging layer on server sessions: its byte classes are checked
/// against nghttp2's own public check functions for every byte, and each rule of RFC 9113 §8 it enforces rule by rule.
/// (Tests/Interop/test_abuse.py sends the malformed requests over the wire.)
struct RequestFieldRulesTests {
    typealias Field = (name: String, value: String)

    private static let head: [Field] = [
        (":method", "POST"), (":scheme", "http"), (":path", "/a.B/C"), (":authority", "example.com:443"),
        ("content-type", "application/grpc"), ("te", "trailers"), ("authorization", "Bearer pk_1"),
    ]

    /// Feeds `fields` to one block's rules: the index of the first refused field, or nil with the rules.
    private static func feed(_ fields: [Field], block: RequestFieldRules.Block = .head) -> (refused: Int?, rules: RequestFieldRules) {
        var rules = RequestFieldRules(block)
        for (index, field) in fields.enumerated() {
            let accepted = Array(field.name.utf8).withUnsafeBytes { name in
                Array(field.value.utf8).withUnsafeBytes { value in
                    rules.accept(name: name, value: value, known: KnownHeader(name))
                }
            }
            if !accepted { return (index, rules) }
        }
        return (nil, rules)
    }

    private static func isAccepted(_ fields: [Field]) -> Bool {
        let (refused, rules) = feed(fields)
        return refused == nil && rules.headIsComplete
    }

    // MARK: Byte classes against nghttp2

    private static func nghttp2Accepts(_ check: (UnsafePointer<UInt8>?, Int) -> Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { check($0.baseAddress, $0.count) } != 0
    }

    @Test("every byte's classes are nghttp2's", arguments: [
        (RequestFieldRules.ByteClass.name, "name"), (.value, "value"), (.token, "method"), (.path, "path"),
        (.authority, "authority"),
    ])
    func byteClassesMatchNGHTTP2(_ byteClass: RequestFieldRules.ByteClass, _ label: String) {
        for byte in UInt8.min...UInt8.max {
            // Inside a longer string, so nghttp2's checks of a first byte or of a lone `:` do not apply.
            let bytes = [UInt8(ascii: "a"), byte, UInt8(ascii: "a")]
            let expected =
                switch label {
                case "name": Self.nghttp2Accepts(nghttp2_check_header_name, bytes)
                case "value": Self.nghttp2Accepts(nghttp2_check_header_value, bytes)
                case "method": Self.nghttp2Accepts(nghttp2_check_method, bytes)
                case "path": Self.nghttp2Accepts(nghttp2_check_path, bytes)
                default: Self.nghttp2Accepts(nghttp2_check_authority, bytes)
                }
            let ours = bytes.withUnsafeBytes { RequestFieldRules.all($0, are: byteClass) }
            #expect(ours == expected, "\(label) byte \(byte)")
        }
    }

    // MARK: Rules

    @Test func anOrdinaryGRPCRequestIsAccepted() {
        #expect(Self.isAccepted(Self.head))
        #expect(Self.isAccepted(Self.head + [("content-length", "19"), ("user-agent", "grpc-python/1.0 (x; y)")]))
        // `host` stands for `:authority`; `*` is OPTIONS' path; other schemes take any path.
        #expect(Self.isAccepted(Self.head.filter { $0.name != ":authority" } + [("host", "example.com")]))
        #expect(Self.isAccepted([(":method", "OPTIONS"), (":scheme", "https"), (":path", "*"), (":authority", "a")]))
        #expect(Self.isAccepted([(":method", "GET"), (":scheme", "urn"), (":path", "x:y"), (":authority", "a")]))
        #expect(Self.isAccepted([(":method", "CONNECT"), (":authority", "example.com:443")]))
    }

    @Test("a field that is malformed is refused", arguments: [
        ("X-Upper", "1"), ("x bad", "1"), ("x:bad", "1"), ("", "1"), ("x-nul", "a\u{0}b"), ("x-crlf", "a\r\nb: 1"),
        ("x-space", " a"), ("x-space", "a "), ("x-tab", "\ta"), ("x-del", "a\u{7F}"), ("connection", "keep-alive"),
        ("keep-alive", "1"), ("proxy-connection", "x"), ("transfer-encoding", "chunked"), ("upgrade", "h2c"),
        ("te", "gzip"), ("te", "trailers, gzip"), ("content-length", "1x"), ("content-length", ""),
        ("content-length", "99999999999999999999"), ("host", "a b"), ("host", ""),
    ])
    func malformedFieldIsRefused(_ name: String, _ value: String) {
        #expect(Self.feed(Self.head + [(name, value)]).refused == Self.head.count)
    }

    @Test("a pseudo-header that is malformed or out of place is refused", arguments: [
        [(":foo", "bar")], [(":status", "200")], [(":protocol", "websocket")], [(":", "x")],
        [(":path", "/again")], [(":method", "")], [(":method", "PO ST")], [(":path", "/a b")], [(":scheme", "1http")],
        [(":authority", "a b")],
    ])
    func malformedPseudoHeaderIsRefused(_ extra: [Field]) {
        // Among the pseudo-headers, before any regular field.
        let fields = Array(Self.head.prefix(4)) + extra + Self.head.dropFirst(4)
        #expect(Self.feed(fields).refused == 4)
    }

    @Test func pseudoHeaderAfterARegularFieldIsRefused() {
        #expect(Self.feed(Self.head + [(":authority", "b")]).refused == Self.head.count)
        // Any regular field ends the pseudo-headers' place, a well-formed one too.
        #expect(Self.feed([(":method", "GET"), ("x-a", "1"), (":path", "/")]).refused == 2)
    }

    @Test func fieldsThatMayComeOnceAreRefusedTheSecondTime() {
        #expect(Self.feed(Self.head + [("content-length", "1"), ("content-length", "1")]).refused == Self.head.count + 1)
        #expect(Self.feed(Self.head + [("host", "a"), ("host", "a")]).refused == Self.head.count + 1)
    }

    @Test("a head without what every request needs is refused", arguments: [":method", ":scheme", ":path", ":authority"])
    func incompleteHeadIsRefused(_ missing: String) {
        let (refused, rules) = Self.feed(Self.head.filter { $0.name != missing })
        #expect(refused == nil)
        #expect(!rules.headIsComplete)
    }

    @Test func pathsAndConnectFollowTheirRules() {
        // An http(s) path must start with `/`; `*` only for OPTIONS; CONNECT has neither scheme nor path.
        #expect(!Self.isAccepted([(":method", "POST"), (":scheme", "https"), (":path", "a/b"), (":authority", "a")]))
        #expect(!Self.isAccepted([(":method", "GET"), (":scheme", "HTTP"), (":path", "*"), (":authority", "a")]))
        #expect(!Self.isAccepted([(":method", "CONNECT"), (":path", "/"), (":authority", "a")]))
        #expect(!Self.isAccepted([(":method", "CONNECT"), (":scheme", "https"), (":authority", "a")]))
        #expect(!Self.isAccepted([(":method", "CONNECT"), ("host", "a")]))
    }

    @Test func trailersCarryNoPseudoHeaderFramingNorRouting() {
        #expect(Self.feed([("x-trailer", "1"), ("grpc-status", "0")], block: .trailers).refused == nil)
        #expect(Self.feed([(":path", "/")], block: .trailers).refused == 0)
        #expect(Self.feed([("content-length", "0")], block: .trailers).refused == 0)
        #expect(Self.feed([("host", "example.com")], block: .trailers).refused == 0)
        #expect(Self.feed([("X-Trailer", "1")], block: .trailers).refused == 0)
    }

    // MARK: Body length

    /// Whether a body of `chunks` is within `length` after each chunk, and valid once it ends.
    private static func receive(_ chunks: [Int], against length: RequestBodyLength) -> (withinAll: Bool, endIsValid: Bool) {
        var length = length
        var withinAll = true
        for chunk in chunks where !length.add(chunk) { withinAll = false }
        return (withinAll, length.endIsValid)
    }

    @Test func aDeclaredLengthMustBeTheBodysLength() {
        let declared = Self.feed(Self.head + [("content-length", "5")]).rules.bodyLength
        #expect(Self.receive([2, 3], against: declared) == (true, true))
        #expect(Self.receive([4], against: declared) == (true, false))
        #expect(Self.receive([5, 1], against: declared) == (false, false))
    }

    @Test func withoutADeclaredLengthAnyBodyIsValid() {
        #expect(Self.receive([1 << 20], against: Self.feed(Self.head).rules.bodyLength) == (true, true))
        // A CONNECT's content-length declares nothing.
        let connect = Self.feed([(":method", "CONNECT"), (":authority", "a"), ("content-length", "1")]).rules
        #expect(Self.receive([10], against: connect.bodyLength) == (true, true))
    }
}
