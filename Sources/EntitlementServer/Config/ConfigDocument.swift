/// A value in the configuration file.
enum ConfigValue: Equatable, Sendable {
    case string(String)
    /// Saturates at `Int.min`/`Int.max` when the written number does not fit; range checks report it as written.
    case integer(Int)
    case boolean(Bool)

    var typeName: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .boolean: "a boolean"
        }
    }
}

/// A parsed configuration file: `[section]` headers and `key = value` pairs, in file order.
///
/// The accepted syntax is a strict subset of TOML 1.0: bare section names and keys, basic strings with the escapes
/// `\"`, `\\`, `\n`, `\t` and `\uXXXX`, literal strings (`'...'`, taken as written), decimal integers (underscores
/// between digits allowed), `true`, `false` and `#` comments. Everything else TOML has is rejected with a message
/// saying so, rather than half-understood.
struct ConfigDocument: Sendable {
    struct Section: Sendable, Equatable {
        var name: String
        var line: Int
    }

    struct Entry: Sendable, Equatable {
        var section: String
        var key: String
        var value: ConfigValue
        /// The value as written, for error messages.
        var raw: String
        var line: Int
    }

    var sections: [Section] = []
    var entries: [Entry] = []
    /// The lines that could not be read, in file order; `sections` and `entries` hold the others.
    var problems: [ConfigError] = []

    /// Parses `text`; `file` is only used to name the file in errors. A line that cannot be read is recorded in
    /// ``problems`` and parsing goes on with the next, so that one run reports every such line; the keys under a
    /// section header that cannot be read are passed over (their section is unknown).
    static func parse(_ text: String, file: String) -> ConfigDocument {
        var document = ConfigDocument()
        var currentSection: String?
        var inUnreadableSection = false
        var sectionLines: [String: Int] = [:]
        var keyLines: [String: Int] = [:]  // "section\0key" -> line

        // Split on scalars, not Characters: "\r\n" is a single Character.
        var lines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false)
        if let first = lines.first, first.first == "\u{FEFF}" {
            lines[0] = first.dropFirst()
        }
        for (index, rawLine) in lines.enumerated() {
            let lineNumber = index + 1
            var scalars = Array(rawLine)
            if scalars.last == "\r" { scalars.removeLast() }
            var scanner = LineScanner(scalars: scalars, file: file, line: lineNumber, section: currentSection)
            scanner.skipWhitespace()
            guard let first = scanner.peek(), first != "#" else { continue }

            do throws(ConfigError) {
                if first == "[" {
                    inUnreadableSection = true
                    // A header's problems are its own, not the previous section's.
                    var header = LineScanner(scalars: scalars, file: file, line: lineNumber, section: nil)
                    header.position = scanner.position
                    let name = try header.sectionHeader()
                    if let firstLine = sectionLines[name] {
                        throw .duplicateSection(file, line: lineNumber, section: name, firstLine: firstLine)
                    }
                    sectionLines[name] = lineNumber
                    document.sections.append(Section(name: name, line: lineNumber))
                    currentSection = name
                    inUnreadableSection = false
                    continue
                }
                guard !inUnreadableSection else { continue }

                let key = try scanner.readKey()
                guard let section = currentSection else {
                    throw .keyOutsideSection(file, line: lineNumber, key: key)
                }
                scanner.skipWhitespace()
                guard scanner.peek() == "=" else {
                    throw .syntax(file, line: lineNumber, section: section, key: key, "expected = after the key")
                }
                scanner.advance()
                scanner.skipWhitespace()
                let start = scanner.position
                let value = try scanner.value()
                let raw = scanner.text(from: start)
                try scanner.expectEndOfLine(after: "the value")

                let identity = section + "\u{0}" + key
                if let firstLine = keyLines[identity] {
                    throw .duplicateKey(file, line: lineNumber, section: section, key: key, firstLine: firstLine)
                }
                keyLines[identity] = lineNumber
                document.entries.append(Entry(section: section, key: key, value: value, raw: raw, line: lineNumber))
            } catch {
                document.problems.append(error)
            }
        }
        return document
    }
}

/// Reads one line of the file.
private struct LineScanner {
    let scalars: [Unicode.Scalar]
    let file: String
    let line: Int
    let section: String?
    var key: String?
    var position = 0

    init(scalars: [Unicode.Scalar], file: String, line: Int, section: String?) {
        self.scalars = scalars
        self.file = file
        self.line = line
        self.section = section
    }

    func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        position + offset < scalars.count ? scalars[position + offset] : nil
    }

    mutating func advance(_ count: Int = 1) { position += count }

    mutating func skipWhitespace() {
        while let scalar = peek(), scalar == " " || scalar == "\t" { advance() }
    }

    func text(from start: Int) -> String {
        var text = String.UnicodeScalarView()
        text.append(contentsOf: scalars[start..<position])
        return String(text)
    }

    private func syntaxError(_ message: String) -> ConfigError {
        .syntax(file, line: line, section: section, key: key, message)
    }

    private func unsupported(_ what: String) -> ConfigError {
        .unsupported(file, line: line, section: section, key: key, what)
    }

    static func isBareKeyScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", "_", "-": true
        default: false
        }
    }

    mutating func bareName(_ what: String) throws(ConfigError) -> String {
        if let first = peek(), first == "\"" || first == "'" {
            throw unsupported("quoted \(what)s are")
        }
        let start = position
        while let scalar = peek(), Self.isBareKeyScalar(scalar) { advance() }
        guard position > start else {
            let found = peek().map { "'\($0)'" } ?? "end of line"
            throw syntaxError("expected a \(what) (letters, digits, _ and -), found \(found)")
        }
        return text(from: start)
    }

    /// `[name]` followed by nothing but an optional comment.
    mutating func sectionHeader() throws(ConfigError) -> String {
        advance()  // [
        if peek() == "[" { throw unsupported("arrays of tables ([[...]]) are") }
        skipWhitespace()
        let name = try bareName("section name")
        skipWhitespace()
        if peek() == "." { throw unsupported("nested sections ([a.b]) are") }
        guard peek() == "]" else { throw syntaxError("expected ] to close the section header") }
        advance()
        try expectEndOfLine(after: "the section header")
        return name
    }

    mutating func readKey() throws(ConfigError) -> String {
        let name = try bareName("key")
        key = name
        skipWhitespace()
        if peek() == "." { throw unsupported("dotted keys are") }
        return name
    }

    mutating func expectEndOfLine(after what: String) throws(ConfigError) {
        skipWhitespace()
        guard let scalar = peek(), scalar != "#" else { return }
        throw syntaxError("unexpected text after \(what): \(String(String.UnicodeScalarView(scalars[position...])))")
    }

    mutating func value() throws(ConfigError) -> ConfigValue {
        guard let first = peek(), first != "#" else { throw syntaxError("missing value after =") }
        switch first {
        case "\"":
            if peek(1) == "\"" && peek(2) == "\"" { throw unsupported("multi-line strings (\"\"\"...\"\"\") are") }
            return .string(try basicString())
        case "'":
            if peek(1) == "'" && peek(2) == "'" { throw unsupported("multi-line literal strings ('''...''') are") }
            return .string(try literalString())
        case "[": throw unsupported("arrays are")
        case "{": throw unsupported("inline tables are")
        default: break
        }
        let start = position
        while let scalar = peek(), scalar != " " && scalar != "\t" && scalar != "#" { advance() }
        let word = text(from: start)
        switch word {
        case "true": return .boolean(true)
        case "false": return .boolean(false)
        default: return .integer(try integer(word))
        }
    }

    /// A decimal integer: `[+-]?(0|[1-9](_?[0-9])*)`.
    private func integer(_ word: String) throws(ConfigError) -> Int {
        var digits = Substring(word)
        var negative = false
        if let sign = digits.first, sign == "+" || sign == "-" {
            negative = sign == "-"
            digits = digits.dropFirst()
        }
        guard let first = digits.first, first.isASCII, first.isNumber else {
            if ["inf", "nan"].contains(digits) { throw unsupported("floating-point numbers are") }
            throw syntaxError("invalid value \(word); strings must be in double quotes, booleans are true or false")
        }
        if digits.count > 1, first == "0" {
            if let radix = digits.dropFirst().first, "xob".contains(radix) {
                throw unsupported("hexadecimal, octal and binary integers are")
            }
            if digits.allSatisfy({ $0.isASCII && $0.isNumber }) {
                throw syntaxError("invalid integer \(word): leading zeros are not allowed")
            }
        }
        if digits.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }),
            digits.allSatisfy({ ($0.isASCII && $0.isNumber) || "._eE+-".contains($0) })
        {
            throw unsupported("floating-point numbers are")
        }
        var value = 0
        var overflow = false
        var previousWasDigit = false
        for character in digits {
            if character == "_" {
                guard previousWasDigit else {
                    throw syntaxError("invalid integer \(word): an underscore must stand between two digits")
                }
                previousWasDigit = false
                continue
            }
            guard character.isASCII, let digit = character.wholeNumberValue else {
                throw syntaxError("invalid value \(word); strings must be in double quotes, booleans are true or false")
            }
            previousWasDigit = true
            let (shifted, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = shifted.addingReportingOverflow(digit)
            overflow = overflow || o1 || o2
            value = sum
        }
        guard previousWasDigit else {
            throw syntaxError("invalid integer \(word): an underscore must stand between two digits")
        }
        if overflow { return negative ? Int.min : Int.max }
        return negative ? -value : value
    }

    /// A `"..."` string on this line, with its escapes decoded.
    private mutating func basicString() throws(ConfigError) -> String {
        advance()  // opening quote
        var result = String.UnicodeScalarView()
        while true {
            guard let scalar = peek() else {
                throw .unterminatedString(file, line: line, section: section, key: key)
            }
            advance()
            switch scalar {
            case "\"":
                return String(result)
            case "\\":
                guard let escape = peek() else {
                    throw .unterminatedString(file, line: line, section: section, key: key)
                }
                advance()
                switch escape {
                case "\"": result.append("\"")
                case "\\": result.append("\\")
                case "n": result.append("\n")
                case "t": result.append("\t")
                case "u": result.append(try unicodeEscape())
                default: throw .invalidEscape(file, line: line, section: section, key: key, "\\\(escape)")
                }
            case "\u{00}"..."\u{08}", "\u{0A}"..."\u{1F}", "\u{7F}":
                throw syntaxError("control character U+\(hex(scalar.value)) in string; write \\n or \\t instead")
            default:
                result.append(scalar)
            }
        }
    }

    /// A `'...'` string on this line: TOML's literal string, taken exactly as written (no escapes, so Windows paths
    /// and regular expressions need no doubled backslashes); it cannot contain `'` or control characters but tab.
    private mutating func literalString() throws(ConfigError) -> String {
        advance()  // opening quote
        var result = String.UnicodeScalarView()
        while let scalar = peek() {
            advance()
            switch scalar {
            case "'":
                return String(result)
            case "\u{00}"..."\u{08}", "\u{0A}"..."\u{1F}", "\u{7F}":
                throw syntaxError("control character U+\(hex(scalar.value)) in string; use a \"...\" string with \\n")
            default:
                result.append(scalar)
            }
        }
        throw .unterminatedString(file, line: line, section: section, key: key, quote: "'")
    }

    private mutating func unicodeEscape() throws(ConfigError) -> Unicode.Scalar {
        var value: UInt32 = 0
        var written = "\\u"
        for _ in 0..<4 {
            guard let scalar = peek(), let digit = Character(scalar).hexDigitValue, scalar.isASCII else {
                throw .invalidEscape(file, line: line, section: section, key: key, written + "…: expected 4 hex digits")
            }
            written.unicodeScalars.append(scalar)
            value = value * 16 + UInt32(digit)
            advance()
        }
        guard let scalar = Unicode.Scalar(value) else {
            throw .invalidEscape(file, line: line, section: section, key: key, written + " (a surrogate, not a character)")
        }
        return scalar
    }

    private func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
