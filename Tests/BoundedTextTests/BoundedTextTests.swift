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
