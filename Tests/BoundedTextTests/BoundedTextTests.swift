import BoundedText
import Testing

@Suite struct BoundedTextTests {
    @Test func shortTextIsKept() {
        #expect("abc".truncated(toUTF8Bytes: 3) == "abc")
        #expect("".quotedForMessage == "''")
    }

    @Test func longTextIsCutWithAnEllipsisInsideTheBound() {
        let cut = String(repeating: "x", count: 10_000).truncated(toUTF8Bytes: 100)
        #expect(cut.utf8.count == 100)
        #expect(cut.hasSuffix("…"))
        #expect(String(repeating: "y", count: 9_000).quotedForMessage.utf8.count == maxQuotedInputBytes + 2)
    }

    @Test func controlCharactersAreEscapedInQuotes() {
        #expect("a\u{0}b\u{1B}[31m\nc\u{85}d\u{2028}".quotedForMessage == "'a<U+0000>b<U+001B>[31m<U+000A>c<U+0085>d<U+2028>'")
        #expect("tab\tand DEL\u{7F}".quotedForMessage == "'tab<U+0009>and DEL<U+007F>'")
        // Text without them is quoted as it is, emoji sequences and bidi marks included.
        #expect("café 👍🏽 \u{200D}".quotedForMessage == "'café 👍🏽 \u{200D}'")
        // Escaping cannot grow past the bound: it comes first, then the cut.
        #expect(String(repeating: "\u{0}", count: 1_000).quotedForMessage.utf8.count <= maxQuotedInputBytes + 2)
    }

    @Test func countsAgreeWithTheirNouns() {
        #expect(counted(1, "delivery", "deliveries") == "1 delivery")
        #expect(counted(0, "delivery", "deliveries") == "0 deliveries")
        #expect(counted(2, "attempt") == "2 attempts")
        #expect(counted(Int64(1), "day") == "1 day")
    }

    @Test("typo suggestions stay close")
    func suggestions() {
        #expect(closestMatch(to: "lisen", in: ["listen", "log_level"]) == "listen")
        #expect(closestMatch(to: "database_path", in: ["database", "tenants"]) == nil)
        #expect(closestMatch(to: "idnetify", in: ["identify", "status", "watch"]) == "identify")
        #expect(editDistance("kitten", "sitting") == 3)
    }

    @Test func cutsFallOnCharacterBoundaries() {
        // "é" is two bytes and "👍🏽" eight: a cut never splits one, so the result is valid text under the bound.
        for text in [String(repeating: "é", count: 300), String(repeating: "👍🏽", count: 100)] {
            for bound in 4...40 {
                let cut = text.truncated(toUTF8Bytes: bound)
                #expect(cut.utf8.count <= bound)
                #expect(text.hasPrefix(cut.dropLast()))
            }
        }
    }
}
