import Encodings
import Foundation
import Testing

@Suite struct JSONReaderTests {
    /// A flat record read the way the App Store payload readers read theirs.
    struct Record: Equatable {
        var name: String?
        var count: Int64?
        var flag: Bool?
        var tags: [String]?
        var ratio: Double?

        init(json reader: inout JSONReader) throws(JSONReadError) {
            var record = Record()
            try reader.readObject { reader, key throws(JSONReadError) in
                if key == "name" {
                    record.name = try reader.readOptional { reader throws(JSONReadError) in try reader.readString() }
                } else if key == "count" {
                    record.count = try reader.readOptional { reader throws(JSONReadError) in try reader.readInt64() }
                } else if key == "flag" {
                    record.flag = try reader.readBool()
                } else if key == "tags" {
                    record.tags = try reader.readStringArray()
                } else if key == "ratio" {
                    record.ratio = try reader.readDouble()
                } else {
                    try reader.skipValue()
                }
            }
            self = record
        }

        init() {}
    }

    static func record(_ json: String) throws(JSONReadError) -> Record {
        try JSONReader.read(Array(json.utf8)) { reader throws(JSONReadError) in try Record(json: &reader) }
    }

    static func skip(_ json: [UInt8]) throws(JSONReadError) {
        try JSONReader.read(json) { reader throws(JSONReadError) in try reader.skipValue() }
    }

    @Test func readsMembersInAnyOrderSkippingUnknownOnesAndNull() throws {
        let record = try Self.record("""
             { "tags" : ["a", "b"], "unknown": {"nested": [1, {"deep": null}, "x", true, -2.5e-3]},
              "name":"caf\\u00e9 \\ud83d\\ude00 \\"q\\" \\\\ \\/ \\b\\f\\n\\r\\t", "count": null, "flag": false,
              "ratio": 0.25 }\t\r\n
            """)
        #expect(record.tags == ["a", "b"])
        #expect(record.name == "café 😀 \"q\" \\ / \u{8}\u{c}\n\r\t")
        #expect(record.count == nil)
        #expect(record.flag == false)
        #expect(record.ratio == 0.25)
        #expect(try Self.record("{}") == Record())
    }

    @Test func aRepeatedKeyKeepsItsLastValueAsFoundationDoes() throws {
        let json = #"{"name":"first","name":"last"}"#
        #expect(try Self.record(json).name == "last")
        let foundation = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        #expect(foundation?["name"] as? String == "last")
    }

    @Test(arguments: [
        ("12", Int64(12)), ("-0", 0), ("12.0", 12), ("1.2e1", 12), ("1E3", 1000), ("-9223372036854775808", .min),
        ("9223372036854775807", .max),
    ])
    func wholeNumbersReadAsIntegers(text: String, value: Int64) throws {
        #expect(try Self.record(#"{"count":\#(text)}"#).count == value)
    }

    @Test func fractionsAreTruncatedOnlyWhenAsked() throws {
        let read = { (text: String, truncating: Bool) throws(JSONReadError) -> Int64 in
            try JSONReader.read(Array(text.utf8)) { reader throws(JSONReadError) in
                try reader.readInt64(truncatingFraction: truncating)
            }
        }
        #expect(try read("1697679936049.7297", true) == 1_697_679_936_049)
        #expect(try read("-1.9", true) == -1)
        #expect(throws: JSONReadError.self) { try read("1.5", false) }
        #expect(throws: JSONReadError.self) { try read("1e300", true) }
        #expect(throws: JSONReadError.self) { try read("9223372036854775808", false) }
    }

    @Test(arguments: [
        (#"{"count":"7"}"#, "`count`: expected a number, found a string"),
        (#"{"name":7}"#, "`name`: expected a string, found a number"),
        (#"{"flag":null}"#, "`flag`: expected a boolean, found null"),
        (#"{"tags":["a",3]}"#, "`tags[1]`: expected a string, found a number"),
        (#"{"count":1.5}"#, "`count`: 1.5 is not a whole number in the 64-bit range"),
        (#"[1]"#, "expected an object, found an array"),
    ])
    func wrongTypesNameThePathAndWhatWasFound(json: String, message: String) {
        let error = #expect(throws: JSONReadError.self) { try Self.record(json) }
        #expect(error?.description == message)
    }

    /// Each is invalid JSON (RFC 8259); Foundation's parser refuses them too.
    @Test(arguments: [
        "", " ", "{", "}", "{\"name\"}", "{\"name\":}", "{name:\"a\"}", "{'name':'a'}",
        "{\"name\":\"a\"} x", "{\"name\":\"a\"}{}", "[,1]", "[1 2]", "01", "-", "1.", ".5", "1e", "1e+", "+1",
        "0x10", "NaN", "Infinity", "tru", "nul", "True", "\"abc", "\"\\x\"", "\"\\u12\"", "\"\\u12G4\"", "\"a\tb\"",
        "\"a\nb\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"", "[\"a\"", "/* c */ {}",
    ])
    func invalidDocumentsAreRefused(json: String) {
        #expect(throws: JSONReadError.self) { try Self.skip(Array(json.utf8)) }
        #expect((try? JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed)) == nil)
    }

    /// Foundation's parser accepts a trailing comma; RFC 8259 and Python's `json` (Apple's own library) do not.
    @Test(arguments: ["{\"name\":\"a\",}", "[1,]", "{\"a\":[1,],\"b\":2}"])
    func trailingCommasAreRefused(json: String) {
        #expect(throws: JSONReadError.self) { try Self.skip(Array(json.utf8)) }
    }

    @Test(arguments: [
        "{}", "[]", " [ ] ", "0", "-0", "-12.5e+3", "1E-2", "true", "false", "null", "\"\"", "\"\\u0000\"",
        "[[[[]]]]", "{\"\":{\"\":[]}}", "{\"a\":1,\"a\":2}", "\"\\ud83d\\ude00\"", "\"é😀\"",
    ])
    func validDocumentsAreRead(json: String) throws {
        try Self.skip(Array(json.utf8))
        #expect((try? JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed)) != nil)
    }

    /// A stray byte, a truncated sequence, an encoded surrogate, a bad byte in a key.
    @Test(arguments: [
        [0x22, 0xFF, 0x22], [0x22, 0xC3, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x7B, 0x22, 0xFE, 0x22, 0x3A, 0x31, 0x7D],
    ] as [[UInt8]])
    func stringsAndKeysMustBeUTF8(bytes: [UInt8]) {
        #expect(throws: JSONReadError.self) { try Self.skip(bytes) }
    }

    @Test func nestingIsBoundedInsteadOfRecursingWithoutEnd() throws {
        let limit = JSONReader.maximumDepth
        let deepest = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        try Self.skip(Array(deepest.utf8))
        let tooDeep = String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)
        let error = #expect(throws: JSONReadError.self) { try Self.skip(Array(tooDeep.utf8)) }
        #expect(error?.description.contains("nested deeper than \(limit)") == true)
        let hostile = Array(String(repeating: "{\"a\":[", count: 100_000).utf8)
        #expect(throws: JSONReadError.self) { try Self.skip(hostile) }
    }

    /// Strings are scanned eight bytes at a time: an escape, a quote or a control character is found at every offset
    /// within and across those words, and multi-byte UTF-8 (high bits set) never ends the scan early.
    @Test func specialBytesAreFoundAtEveryOffsetOfTheWordScan() throws {
        let read = { (bytes: [UInt8]) throws(JSONReadError) -> String in
            try JSONReader.read(bytes) { reader throws(JSONReadError) in try reader.readString() }
        }
        for length in 0..<26 {
            let plain = String(repeating: "é", count: length / 2) + String(repeating: "a", count: length % 2)
            #expect(try read(Array("\"\(plain)\"".utf8)) == plain)
            for offset in 0...length {
                let before = String(repeating: "a", count: offset)
                let after = String(repeating: "b", count: length - offset)
                #expect(try read(Array("\"\(before)\\n\(after)\"".utf8)) == before + "\n" + after)
                #expect(try read(Array("\"\(before)\\\"\(after)\"".utf8)) == before + "\"" + after)
                #expect(throws: JSONReadError.self) { try read(Array("\"\(before)\u{1F}\(after)\"".utf8)) }
                #expect(throws: JSONReadError.self) { try read(Array("\"\(before)\(after)".utf8)) }
                let quoted = Array("\"\(before)\"".utf8) + [UInt8](repeating: UInt8(ascii: " "), count: length - offset)
                #expect(try read(quoted) == before)
            }
        }
    }

    @Test func keysCompareByBytesAfterUnescaping() throws {
        #expect(try Self.record(#"{"n\u0061me":"escaped key"}"#).name == "escaped key")
        #expect(try Self.record(#"{"names":"x","nam":"y"}"#).name == nil)
    }
}
