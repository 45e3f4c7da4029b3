import EntitlementDomain
import Testing

@Suite struct EntitlementIDTests {
    @Test func acceptsWordsUpTo128Bytes() throws {
        #expect(try EntitlementID.validate("pro") == "pro")
        #expect(try EntitlementID.validate("beta_access.v2") == "beta_access.v2")
        #expect(EntitlementID.problem(with: String(repeating: "e", count: 128)) == nil)
    }

    @Test func rejectsEmptyLongWhitespaceAndControl() throws {
        #expect(EntitlementID.problem(with: "") == "is empty; an entitlement ID must be 1 to 128 bytes of UTF-8")
        #expect(EntitlementID.problem(with: String(repeating: "e", count: 129)) == "is 129 bytes of UTF-8; the limit is 128")
        #expect(try #require(EntitlementID.problem(with: "pro plan")).contains("whitespace (U+0020)"))
        #expect(try #require(EntitlementID.problem(with: "pro\u{7}")).contains("control character U+0007"))
        #expect(throws: DomainError.invalidRequest("")) { try EntitlementID.validate(" pro") }
        do {
            try EntitlementID.validate("", field: "grant.entitlement_id")
            Issue.record("expected an error")
        } catch {
            #expect(error.message.hasPrefix("grant.entitlement_id is empty"))
        }
    }
}
