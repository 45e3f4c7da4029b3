import Encodings
import Testing

/// Objects read member by member into properties, as the stores' answers are.
@Suite struct JSONMemberTests {
    struct Record: Equatable, JSONReadable {
        var id = ""
        var count: Int64?
        var flag: Bool?
        var tags: [String]?
        var labels: [String: String]?
        var nested: [Record]?

        init() {}

        init(json reader: inout JSONReader) throws(JSONReadError) {
            self.init()
            try reader.readMembers(into: &self, [
                .required("id", \.id), .optional("count", \.count), .optional("flag", \.flag), .optional("tags", \.tags),
                .optional("labels", \.labels), .optional("nested", \.nested),
            ])
        }
    }

    static func record(_ json: String) throws(JSONReadError) -> Record {
        try JSONReader.read(Record.self, from: Array(json.utf8))
    }

    @Test func eachMemberFillsItsPropertyAndOthersAreSkipped() throws {
        let record = try Self.record("""
            {"later": {"a": [1, null]}, "id": "r1", "count": 12, "flag": true, "tags": ["a", "b"],
             "labels": {"k": "v"}, "nested": [{"id": "r2"}]}
            """)
        #expect(record.id == "r1" && record.count == 12 && record.flag == true && record.tags == ["a", "b"])
        #expect(record.labels == ["k": "v"] && record.nested?.map(\.id) == ["r2"])
    }

    @Test func anOptionalMemberMissingOrNullIsNil() throws {
        let record = try Self.record(#"{"id": "r", "count": null}"#)
        #expect(record.count == nil && record.flag == nil && record.labels == nil)
    }

    @Test func aRequiredMemberMissingOrNullFailsWithItsPath() {
        #expect(throws: JSONReadError.missing("id")) { try Self.record(#"{"count": 1}"#) }
        #expect(throws: JSONReadError.missing("id")) { try Self.record(#"{"id": null}"#) }
        #expect(throws: JSONReadError.missing("id").inside("[0]").inside("nested")) {
            try Self.record(#"{"id": "r", "nested": [{"count": 1}]}"#)
        }
    }

    @Test func aMemberOfTheWrongTypeOrRangeFailsWithItsPath() throws {
        for json in [
            #"{"id": 1}"#, #"{"id": "r", "count": "12"}"#, #"{"id": "r", "count": 9223372036854775808}"#,
            #"{"id": "r", "labels": {"k": 1}}"#, #"{"id": "r", "tags": "a"}"#,
        ] {
            #expect(throws: JSONReadError.self, "\(json)") { try Self.record(json) }
        }
        do {
            _ = try Self.record(#"{"id": "r", "labels": {"k": 1}}"#)
        } catch {
            #expect(error.description == "`labels.k`: expected a string, found a number")
        }
    }
}
