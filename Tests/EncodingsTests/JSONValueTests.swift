import Encodings
import Testing

@Suite struct JSONValueTests {
    @Test func writesStringsThatReadBack() throws {
        let text = "quote \" backslash \\ slash / tab \t newline \n bell \u{7} é 😀"
        let json = JSONValue.object([("k", .string(text))]).text
        #expect(json == #"{"k":"quote \" backslash \\ slash / tab \t newline \n bell \u0007 é 😀"}"#)
        let read = try JSONReader.read(Array(json.utf8)) { reader throws(JSONReadError) in
            var value = ""
            try reader.readObject { reader, _ throws(JSONReadError) in value = try reader.readString() }
            return value
        }
        #expect(read == text)
    }

    @Test func buildsFromLiteralsWithSortedKeys() throws {
        let literal: [String: Any] = [
            "b": [1, Int64.max, -2] as [Any], "a": ["y": true, "x": "s"] as [String: Any], "c": 1.5, "d": 2.0,
            "e": [String](),
        ]
        let value = try #require(JSONValue(sortingKeysOf: literal))
        #expect(value.text == #"{"a":{"x":"s","y":true},"b":[1,9223372036854775807,-2],"c":1.5,"d":2,"e":[]}"#)
    }

    @Test func refusesWhatJSONCannotHold() {
        #expect(JSONValue(sortingKeysOf: ["a": Double.nan]) == nil)
        #expect(JSONValue(sortingKeysOf: ["a": [1: 2]]) == nil)
    }
}
