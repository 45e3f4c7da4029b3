import Testing

@testable import EntitlementServer

@Suite("Configuration syntax: the TOML subset")
struct ConfigDocumentTests {
    /// `text` parsed, which must have no problems.
    private func parse(_ text: String) throws -> ConfigDocument {
        let document = ConfigDocument.parse(text, file: "t.toml")
        try #require(document.problems.isEmpty, "\(document.problems)")
        return document
    }

    private func values(_ text: String) throws -> [String: ConfigValue] {
        let document = try parse(text)
        return Dictionary(uniqueKeysWithValues: document.entries.map { ("\($0.section).\($0.key)", $0.value) })
    }

    @Test("strings, integers, booleans, comments and blank lines")
    func basicValues() throws {
        let parsed = try values(
            """
            # leading comment

            [a]   # comment after a header
            s = "hello"  # comment after a value
            hash = "not # a comment"
            i = 42
            n = -17
            p = +3
            u = 1_000_000
            z = 0
            t = true
            f = false
            \tindented\t=\t"tabs"
            [b]
            s = "other section"
            """
        )
        #expect(parsed["a.s"] == .string("hello"))
        #expect(parsed["a.hash"] == .string("not # a comment"))
        #expect(parsed["a.i"] == .integer(42))
        #expect(parsed["a.n"] == .integer(-17))
        #expect(parsed["a.p"] == .integer(3))
        #expect(parsed["a.u"] == .integer(1_000_000))
        #expect(parsed["a.z"] == .integer(0))
        #expect(parsed["a.t"] == .boolean(true))
        #expect(parsed["a.f"] == .boolean(false))
        #expect(parsed["a.indented"] == .string("tabs"))
        #expect(parsed["b.s"] == .string("other section"))
    }

    @Test("string escapes")
    func escapes() throws {
        let parsed = try values(#"[a]"# + "\n" + #"s = "q\" b\\ n\n t\t e\u00e9 \u2603 ok""#)
        #expect(parsed["a.s"] == .string("q\" b\\ n\n t\t e\u{e9} \u{2603} ok"))
    }

    @Test("non-ASCII text is kept as written")
    func unicode() throws {
        #expect(try values("[a]\ns = \"données ☃\"\n")["a.s"] == .string("données ☃"))
    }

    @Test("CRLF line endings and a byte-order mark")
    func lineEndings() throws {
        let document = try parse("\u{FEFF}[a]\r\nx = 1\r\n\r\ny = \"v\"\r\n")
        #expect(document.entries.map(\.key) == ["x", "y"])
        #expect(document.entries.map(\.line) == [2, 4])
        #expect(document.entries[1].value == .string("v"))
    }

    @Test("the raw text of a value is kept for messages")
    func rawText() throws {
        let document = try parse("[a]\nx = 1_000 # c\ny = \"a\\tb\"\n")
        #expect(document.entries.map(\.raw) == ["1_000", "\"a\\tb\""])
    }

    @Test("integers too large for 64 bits saturate so the range check reports them")
    func overflow() throws {
        let parsed = try values("[a]\nbig = 9223372036854775808\nsmall = -9223372036854775809\n")
        #expect(parsed["a.big"] == .integer(Int.max))
        #expect(parsed["a.small"] == .integer(Int.min))
    }

    @Test("a control character inside a string")
    func controlCharacter() {
        #expect(ConfigDocument.parse("[a]\ns = \"a\u{01}b\"\n", file: "t.toml").problems.map(\.code) == [.syntax])
    }

    @Test("literal strings ('...') are taken exactly as written, as TOML defines them")
    func literalStrings() throws {
        let parsed = try values(
            #"""
            [server]
            listen = '127.0.0.1:1'
            path = 'C:\Users\n\x "quoted" # not a comment'   # a comment
            empty = ''
            """#
        )
        #expect(parsed["server.listen"] == .string("127.0.0.1:1"))
        #expect(parsed["server.path"] == .string(#"C:\Users\n\x "quoted" # not a comment"#))
        #expect(parsed["server.empty"] == .string(""))
        // A tab is the one control character a literal string may hold.
        #expect(try values("[a]\ntab = 'a\tb'\n")["a.tab"] == .string("a\tb"))
        let document = try parse("[a]\nx = 'v' # c\n")
        #expect(document.entries.map(\.raw) == ["'v'"])
    }

    @Test("a literal string that does not close, holds a control character or spans lines", arguments: [
        ("[a]\nx = 'open\n", ConfigError.Code.unterminatedString, "a closing ' is missing"),
        ("[a]\nx = 'a\u{01}b'\n", .syntax, "control character U+0001"),
        ("[a]\nx = '''multi'''\n", .unsupportedSyntax, "multi-line literal strings"),
        ("[a]\nx = 'it's'\n", .syntax, "unexpected text after the value"),
    ])
    func literalStringErrors(text: String, code: ConfigError.Code, fragment: String) {
        let document = ConfigDocument.parse(text, file: "t.toml")
        #expect(document.entries.isEmpty)
        guard let error = document.problems.first, document.problems.count == 1 else {
            Issue.record("expected one error for \(text), got \(document.problems)")
            return
        }
        #expect(error.code == code, "\(error)")
        #expect(error.description.contains(fragment), "\(error)")
        #expect(error.description.hasPrefix("t.toml:2: [a] x: "), "\(error)")
    }

    @Test("every line that cannot be read is reported, and the lines after it are read")
    func everyUnreadableLine() {
        let document = ConfigDocument.parse(
            "[a]\nx = 1.5\ny = 2\nz = \"open\n[b.c]\nunder_bad_header = 1\n[d]\nw = 3\nw = 4\n", file: "t.toml")
        #expect(document.problems.map(\.line) == [2, 4, 5, 9])
        #expect(document.problems.map(\.code) == [.unsupportedSyntax, .unterminatedString, .unsupportedSyntax, .duplicateKey])
        #expect(document.entries.map { "\($0.section).\($0.key)" } == ["a.y", "d.w"])
    }

    @Test("sections and their lines are recorded in order")
    func sections() throws {
        let document = try parse("[one]\n\n[two]\n[ three ]\n")
        #expect(document.sections.map(\.name) == ["one", "two", "three"])
        #expect(document.sections.map(\.line) == [1, 3, 4])
    }
}
