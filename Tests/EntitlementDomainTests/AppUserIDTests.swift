import EntitlementDomain
import Testing

@Suite struct AppUserIDTests {
    private func message(_ id: String, field: String = "app_user_id") -> String? {
        do {
            try AppUserID.validate(id, field: field)
            return nil
        } catch {
            #expect(error.code == .invalidRequest)
            return error.message
        }
    }

    @Test func acceptsOrdinaryIDsUnchanged() throws {
        for id in ["user-42", "a", "alice@example.com", "Ünïcødé 用户", "👩‍💻", "null-pointer", "0x1", "nullable", "$anon:3F2504E0"] {
            #expect(try AppUserID.validate(id) == id)
        }
    }

    @Test(arguments: [
        "null", "undefined", "nil", "none", "0", "anonymous", "(null)", "<null>", "nan", "[object object]", "unknown",
        "-1",
    ])
    func rejectsEachDegenerateID(_ id: String) throws {
        for variant in [id, id.uppercased(), id.prefix(1).uppercased() + id.dropFirst()] {
            let text = try #require(message(variant))
            #expect(text.contains("app_user_id"))
            #expect(text.contains("\"\(variant)\""))
            #expect(text.contains("placeholder"))
        }
        #expect(AppUserID.degenerateIDs.contains(id))
    }

    @Test func degenerateIDsWithSurroundingWhitespaceAreRejectedForTheWhitespace() throws {
        let text = try #require(message(" null "))
        #expect(text.contains("starts with whitespace"))
    }

    @Test func emptyID() throws {
        let text = try #require(message(""))
        #expect(text == "app_user_id is empty; an app user ID must be 1 to 256 bytes of UTF-8")
    }

    @Test func lengthLimitIsInBytes() throws {
        #expect(message(String(repeating: "a", count: 256)) == nil)
        #expect(message(String(repeating: "a", count: 257)) == "app_user_id is 257 bytes of UTF-8; the limit is 256")
        // "é" is two bytes: 128 of them are exactly 256 bytes, one more ASCII byte is over.
        let twoByte = String(repeating: "é", count: 128)
        #expect(twoByte.utf8.count == 256)
        #expect(message(twoByte) == nil)
        #expect(message(twoByte + "a") == "app_user_id is 257 bytes of UTF-8; the limit is 256")
        // A four-byte character that would straddle the limit: 252 + 4 = 256 passes, 253 + 4 = 257 fails.
        #expect(message(String(repeating: "a", count: 252) + "😀") == nil)
        #expect(message(String(repeating: "a", count: 253) + "😀") == "app_user_id is 257 bytes of UTF-8; the limit is 256")
    }

    @Test(arguments: [0x00, 0x01, 0x09, 0x0A, 0x0D, 0x1B, 0x1F, 0x7F, 0x80, 0x85, 0x9F, 0x2028, 0x2029] as [UInt32])
    func rejectsControlCharactersAnywhere(_ value: UInt32) throws {
        let scalar = try #require(Unicode.Scalar(value))
        let id = "ab" + String(Character(scalar)) + "cd"
        let text = try #require(message(id))
        let hex = String(value, radix: 16, uppercase: true)
        #expect(text.contains("U+" + String(repeating: "0", count: 4 - hex.count) + hex))
        #expect(text.contains("at byte offset 2"))
        #expect(text.hasPrefix("app_user_id contains the control character"))
        // At the edges it is still reported as a control character, not as whitespace.
        #expect(try #require(message(String(Character(scalar)) + "abc")).contains("control character"))
    }

    @Test func byteOffsetCountsUTF8Bytes() throws {
        #expect(try #require(message("é\n")).contains("at byte offset 2"))
    }

    @Test func allowsFormatCharactersInside() {
        #expect(message("a\u{200D}b") == nil)  // Zero-width joiner, as in emoji sequences.
        #expect(message("a\u{00A0}b") == nil)  // No-break space inside is fine.
    }

    @Test func rejectsLeadingAndTrailingWhitespace() throws {
        #expect(try #require(message(" alice")) == "app_user_id starts with whitespace (U+0020); remove leading and trailing whitespace")
        #expect(try #require(message("alice ")) == "app_user_id ends with whitespace (U+0020); remove leading and trailing whitespace")
        #expect(try #require(message("\u{00A0}alice")).contains("U+00A0"))
        #expect(try #require(message("alice\u{3000}")).contains("U+3000"))
        #expect(message("alice smith") == nil)
    }

    @Test func fieldNameIsQuoted() throws {
        #expect(try #require(message("", field: "anonymous_id")).hasPrefix("anonymous_id is empty"))
        #expect(try #require(message("null", field: "anonymous_id")).hasPrefix("anonymous_id \"null\""))
    }

    @Test func anonymousPrefix() throws {
        #expect(AppUserID.anonymousPrefix == "$anon:")
        #expect(AppUserID.isAnonymous("$anon:abc"))
        #expect(AppUserID.isAnonymous("$anon:"))
        #expect(!AppUserID.isAnonymous("$ANON:abc"))
        #expect(!AppUserID.isAnonymous("anon:abc"))
        #expect(!AppUserID.isAnonymous("x$anon:abc"))
        #expect(!AppUserID.isAnonymous(""))
    }

    @Test func anonymousIDsNeedAValidRemainder() throws {
        #expect(message("$anon:6f1c0b7e-2f7a-4d37-9a36-1f0f5c3c2b11") == nil)
        #expect(try #require(message("$anon:")).contains("just the anonymous prefix"))
        #expect(try #require(message("$anon: abc")).contains("whitespace right after the anonymous prefix"))
        for placeholder in ["null", "UNDEFINED", "0", "nil", "[object Object]"] {
            let text = try #require(message("$anon:" + placeholder))
            #expect(text.contains("anonymous prefix followed by the placeholder \"\(placeholder)\""))
        }
        #expect(try #require(message("$anon:a\u{0}b")).contains("control character U+0000"))
        #expect(message("$anon:" + String(repeating: "x", count: 250)) == nil)
        #expect(try #require(message("$anon:" + String(repeating: "x", count: 251))).contains("257 bytes"))
    }

    @Test func differentlyCasedAnonymousPrefixIsRejected() throws {
        let text = try #require(message("$ANON:abc"))
        #expect(text.contains("\"$ANON:\""))
        #expect(text.contains("exactly \"$anon:\""))
        #expect(try #require(message("$Anon:abc")).contains("\"$Anon:\""))
    }
}
