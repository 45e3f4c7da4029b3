@testable import TenantConfiguration
import Testing

@Suite struct JSONParserTests {
    private func parse(_ text: String) throws(JSONSyntaxError) -> JSONNode {
        try JSONParser.parse(Array(text.utf8))
    }

    @Test func parsesEveryKindOfValue() throws {
        let node = try parse(#"{"a": [true, false, null, -1.5e3, 0, "x\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"], "b": {}}"#)
        guard case .object(let members) = node.value else { Issue.record("not an object"); return }
        #expect(members.map(\.key) == ["a", "b"])
        guard case .array(let values) = members[0].value.value else { Issue.record("not an array"); return }
        #expect(values.map(\.value) == [
            .bool(true), .bool(false), .null, .number("-1.5e3"), .number("0"), .string("x\"\\/\u{8}\u{C}\n\r\té😀"),
        ])
    }

    @Test func tracksLines() throws {
        let node = try parse("{\n\"a\":\n  [\n1,\n 2]\n}")
        guard case .object(let members) = node.value, case .array(let values) = members[0].value.value else {
            Issue.record("unexpected shape")
            return
        }
        #expect(node.line == 1)
        #expect(members[0].value.line == 3)
        #expect(values.map(\.line) == [4, 5])
    }

    @Test func toleratesAByteOrderMark() throws {
        #expect(try JSONParser.parse([0xEF, 0xBB, 0xBF] + Array("[]".utf8)).value == .array([]))
    }

    @Test func rejectsWhatRFC8259Rejects() {
        for bad in [
            "", "{", "[1,]", "{\"a\":1,}", "01", "1.", "-", "1e", "+1", "'a'", "\"a", "\"\t\"", "\"\\x\"", "\"\\ud800\"",
            "\"\\udc00\"", "\"\\u12\"", "tru", "nul", "[1 2]", "{\"a\" 1}", "{1: 2}", "[] []", "NaN",
        ] {
            #expect(throws: JSONSyntaxError.self, "\(bad)") { try parse(bad) }
        }
    }

    @Test func rejectsDuplicateKeysWithTheirPath() {
        do {
            _ = try parse("{\"a\": {\"b\": 1,\n \"b\": 2}}")
            Issue.record("expected an error")
        } catch {
            #expect(error.path == "a.b")
            #expect(error.line == 2)
            #expect(error.column == 2)
        }
    }

    @Test func limitsNesting() {
        #expect(throws: Never.self) { try parse(String(repeating: "[", count: 64) + String(repeating: "]", count: 64)) }
        #expect(throws: JSONSyntaxError.self) { try parse(String(repeating: "[", count: 65) + String(repeating: "]", count: 65)) }
    }
}
