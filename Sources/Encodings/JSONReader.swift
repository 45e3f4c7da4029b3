/// A pull reader over one JSON text (RFC 8259), for hand-written decoders of machine-written documents read on a hot
/// path (App Store signed data, JWS headers): no intermediate tree, no `Codable` machinery, keys compared as bytes.
///
/// Strict about syntax (the JSON grammar, UTF-8, no trailing content), lenient about content in the way of the
/// libraries that read such documents: members a decoder does not know are skipped (their values must still be valid
/// JSON, at most ``maximumDepth`` deep), and a key that appears twice keeps its last value.
public struct JSONReader {
    /// Containers (objects and arrays) nested deeper than this are refused rather than recursed into.
    public static let maximumDepth = 512

    private let bytes: [UInt8]
    private var position = 0
    private var depth = 0

    private init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Reads the document `bytes`: `value` reads its one top-level value; only whitespace may follow it.
    public static func read<Value>(_ bytes: [UInt8], _ value: (inout JSONReader) throws(JSONReadError) -> Value)
        throws(JSONReadError) -> Value
    {
        var reader = JSONReader(bytes)
        let result = try value(&reader)
        reader.skipWhitespace()
        guard reader.position == bytes.count else {
            throw reader.syntaxError("unexpected content after the JSON value")
        }
        return result
    }

    // MARK: Containers

    /// Reads an object: `member` is called with each key and must read (or ``skipValue()``) that member's value. A
    /// failure inside a member names the member's key in the error's path.
    public mutating func readObject(_ member: (inout JSONReader, Key) throws(JSONReadError) -> Void)
        throws(JSONReadError)
    {
        try expect(UInt8(ascii: "{"), "an object")
        try enter()
        skipWhitespace()
        if consume(UInt8(ascii: "}")) { return leave() }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else { throw syntaxError("expected a string key") }
            let key = Key(try readCheckedStringBytes())
            skipWhitespace()
            guard consume(UInt8(ascii: ":")) else { throw syntaxError("expected ':' after the key") }
            do {
                try member(&self, key)
            } catch {
                throw error.inside(key.text)
            }
            skipWhitespace()
            if consume(UInt8(ascii: ",")) { continue }
            guard consume(UInt8(ascii: "}")) else { throw syntaxError("expected ',' or '}' after an object member") }
            return leave()
        }
    }

    /// Reads an array: `element` is called for each element and must read it. A failure names the element's index.
    public mutating func readArray(_ element: (inout JSONReader) throws(JSONReadError) -> Void) throws(JSONReadError) {
        try expect(UInt8(ascii: "["), "an array")
        try enter()
        skipWhitespace()
        if consume(UInt8(ascii: "]")) { return leave() }
        var index = 0
        while true {
            do {
                try element(&self)
            } catch {
                throw error.inside("[\(index)]")
            }
            index += 1
            skipWhitespace()
            if consume(UInt8(ascii: ",")) { continue }
            guard consume(UInt8(ascii: "]")) else { throw syntaxError("expected ',' or ']' after an array element") }
            return leave()
        }
    }

    /// Reads any value and forgets it.
    public mutating func skipValue() throws(JSONReadError) {
        skipWhitespace()
        switch peek() {
        case UInt8(ascii: "{"): try readObject { reader, _ throws(JSONReadError) in try reader.skipValue() }
        case UInt8(ascii: "["): try readArray { reader throws(JSONReadError) in try reader.skipValue() }
        case UInt8(ascii: "\""): _ = try readCheckedStringBytes()
        case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try readBool()
        case UInt8(ascii: "n"): try readLiteral("null")
        default: _ = try readNumberToken()
        }
    }

    // MARK: Scalars

    /// `nil` for `null`, else `value` reads the value.
    public mutating func readOptional<Value>(_ value: (inout JSONReader) throws(JSONReadError) -> Value)
        throws(JSONReadError) -> Value?
    {
        skipWhitespace()
        if peek() == UInt8(ascii: "n") {
            try readLiteral("null")
            return nil
        }
        return try value(&self)
    }

    public mutating func readString() throws(JSONReadError) -> String {
        skipWhitespace()
        guard peek() == UInt8(ascii: "\"") else { throw typeMismatch("a string") }
        let (utf8, isASCII) = try readStringBytes()
        // ASCII is valid UTF-8, and `String(decoding:)` takes it word by word; generic validation goes scalar by scalar.
        if isASCII { return String(decoding: utf8, as: UTF8.self) }
        guard let string = String(validating: utf8, as: UTF8.self) else {
            throw syntaxError("a string is not valid UTF-8")
        }
        return string
    }

    public mutating func readBool() throws(JSONReadError) -> Bool {
        skipWhitespace()
        switch peek() {
        case UInt8(ascii: "t"):
            try readLiteral("true")
            return true
        case UInt8(ascii: "f"):
            try readLiteral("false")
            return false
        default: throw typeMismatch("a boolean")
        }
    }

    /// A number that is a whole value in range: `12`, also `12.0` and `1.2e1`; with `truncatingFraction`, `12.7` is 12
    /// and `-12.7` is -12.
    public mutating func readInt64(truncatingFraction: Bool = false) throws(JSONReadError) -> Int64 {
        let token = try readNumber()
        if let whole = token.integer { return whole }
        let number = truncatingFraction ? token.double.rounded(.towardZero) : token.double
        guard let whole = Int64(exactly: number) else {
            throw JSONReadError(problem: "\(token.text) is not a whole number in the 64-bit range")
        }
        return whole
    }

    /// A 64-bit integer as proto3's JSON mapping writes it: a decimal string (`"-12"`), or a plain number.
    public mutating func readProtoInt64() throws(JSONReadError) -> Int64 {
        skipWhitespace()
        guard peek() == UInt8(ascii: "\"") else { return try readInt64() }
        let text = try readString()
        guard let value = Int64(text) else {
            throw JSONReadError(problem: "\(text.prefix(40).debugDescription) is not a 64-bit integer")
        }
        return value
    }

    public mutating func readInt() throws(JSONReadError) -> Int {
        let value = try readInt64()
        // Narrower than Int64 on 32-bit platforms: refused there, never trapped on.
        guard let int = Int(exactly: value) else {
            throw JSONReadError(problem: "\(value) is outside the \(Int.bitWidth)-bit range")
        }
        return int
    }

    public mutating func readDouble() throws(JSONReadError) -> Double {
        try readNumber().double
    }

    /// Reads an array of strings.
    public mutating func readStringArray() throws(JSONReadError) -> [String] {
        var strings: [String] = []
        try readArray { reader throws(JSONReadError) in strings.append(try reader.readString()) }
        return strings
    }

    /// A string or an array of strings, as one list (a JWT's `aud`).
    public mutating func readOneOrMoreStrings() throws(JSONReadError) -> [String] {
        skipWhitespace()
        return peek() == UInt8(ascii: "[") ? try readStringArray() : [try readString()]
    }

    // MARK: Optional scalars (a missing member stays nil in the caller; `null` reads as nil)

    public mutating func optionalString() throws(JSONReadError) -> String? {
        try readOptional { reader throws(JSONReadError) in try reader.readString() }
    }

    public mutating func optionalStrings() throws(JSONReadError) -> [String]? {
        try readOptional { reader throws(JSONReadError) in try reader.readStringArray() }
    }

    public mutating func optionalInt64() throws(JSONReadError) -> Int64? {
        try readOptional { reader throws(JSONReadError) in try reader.readInt64() }
    }

    public mutating func optionalInt() throws(JSONReadError) -> Int? {
        try readOptional { reader throws(JSONReadError) in try reader.readInt() }
    }

    public mutating func optionalBool() throws(JSONReadError) -> Bool? {
        try readOptional { reader throws(JSONReadError) in try reader.readBool() }
    }

    // MARK: Keys

    /// An object key as its UTF-8 bytes (escapes resolved).
    public struct Key {
        fileprivate let utf8: ArraySlice<UInt8>

        /// `utf8` is checked to be UTF-8 already.
        fileprivate init(_ utf8: ArraySlice<UInt8>) {
            self.utf8 = utf8
        }

        /// The key as text, for messages.
        public var text: String { String(decoding: utf8, as: UTF8.self) }

        public static func == (key: Key, name: StaticString) -> Bool {
            guard key.utf8.count == name.utf8CodeUnitCount else { return false }
            return key.utf8.withUnsafeBufferPointer { bytes in
                name.withUTF8Buffer { name in bytes.elementsEqual(name) }
            }
        }

        /// Lets a decoder `switch` over a key with string literals as cases, compared as bytes like `==`.
        public static func ~= (name: StaticString, key: Key) -> Bool {
            key == name
        }
    }

    // MARK: Lexing

    /// The next byte, whitespace not skipped (internal: the tree reader in JSONValue+Reading.swift looks ahead).
    func peek() -> UInt8? {
        position < bytes.count ? bytes[position] : nil
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    private mutating func expect(_ byte: UInt8, _ what: String) throws(JSONReadError) {
        skipWhitespace()
        guard consume(byte) else { throw typeMismatch(what) }
    }

    private mutating func enter() throws(JSONReadError) {
        depth += 1
        guard depth <= Self.maximumDepth else {
            throw syntaxError("containers are nested deeper than \(Self.maximumDepth)")
        }
    }

    private mutating func leave() {
        depth -= 1
    }

    mutating func readLiteral(_ literal: StaticString) throws(JSONReadError) {
        let matches = literal.withUTF8Buffer { literal in
            bytes.count - position >= literal.count && bytes[position..<position + literal.count].elementsEqual(literal)
        }
        guard matches else { throw syntaxError("invalid literal") }
        position += literal.utf8CodeUnitCount
    }

    /// The bytes of the string starting at `position`, checked to be UTF-8, without making a `String` of them.
    private mutating func readCheckedStringBytes() throws(JSONReadError) -> ArraySlice<UInt8> {
        let (utf8, isASCII) = try readStringBytes()
        guard isASCII || String(validating: utf8, as: UTF8.self) != nil else {
            throw syntaxError("a string is not valid UTF-8")
        }
        return utf8
    }

    /// The bytes of the string starting at `position` (at its opening quote), escapes resolved, not yet checked to
    /// be UTF-8, and whether they are all ASCII (false when in doubt). Unescaped strings (nearly all) are a slice of
    /// the document, found by one scan.
    private mutating func readStringBytes() throws(JSONReadError) -> (utf8: ArraySlice<UInt8>, isASCII: Bool) {
        let start = position + 1
        let (end, highBits) = bytes.withUnsafeBufferPointer { buffer -> (Int, UInt64) in
            guard let base = UnsafeRawPointer(buffer.baseAddress) else { return (start, 0) }
            var index = start
            var highBits: UInt64 = 0
            // Eight bytes at a time while none of them ends the fast path: JWS strings run to kilobytes.
            while buffer.count - index >= 8 {
                let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                if Self.holdsQuoteBackslashOrControl(word) { break }
                highBits |= word
                index += 8
            }
            while index < buffer.count {
                let byte = buffer[index]
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { break }
                highBits |= UInt64(byte)
                index += 1
            }
            return (index, highBits & 0x8080_8080_8080_8080)
        }
        guard end < bytes.count else { throw syntaxError("a string is not terminated") }
        if bytes[end] == UInt8(ascii: "\"") {
            position = end + 1
            return (bytes[start..<end], highBits == 0)
        }
        position = end
        var unescaped = Array(bytes[start..<end])
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return (unescaped[...], false)
            case UInt8(ascii: "\\"):
                try readEscape(into: &unescaped)
            case ..<0x20:
                throw syntaxError("a string holds an unescaped control character")
            default:
                unescaped.append(byte)
                position += 1
            }
        }
        throw syntaxError("a string is not terminated")
    }

    /// Whether any byte of `word` is `"`, `\\` or below 0x20, with the classic bit tricks: `(x - 0x01…) & ~x & 0x80…`
    /// is nonzero exactly when some byte of `x` is zero, and `(x - 0x20…) & ~x & 0x80…` when some byte is below 0x20.
    @inline(__always)
    private static func holdsQuoteBackslashOrControl(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let found = ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((word &- ones &* 0x20) & ~word)
        return found & (ones &* 0x80) != 0
    }

    /// One escape sequence at `position` (at its backslash), appended as UTF-8.
    private mutating func readEscape(into output: inout [UInt8]) throws(JSONReadError) {
        guard position + 1 < bytes.count else { throw syntaxError("a string is not terminated") }
        let letter = bytes[position + 1]
        position += 2
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(letter)
        case UInt8(ascii: "b"): output.append(0x08)
        case UInt8(ascii: "f"): output.append(0x0C)
        case UInt8(ascii: "n"): output.append(0x0A)
        case UInt8(ascii: "r"): output.append(0x0D)
        case UInt8(ascii: "t"): output.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try readHex4()
            if (0xD800..<0xDC00).contains(scalar) {
                // A high surrogate must be followed by an escaped low one; together they are one scalar.
                guard bytes.count - position >= 6, bytes[position] == UInt8(ascii: "\\"),
                    bytes[position + 1] == UInt8(ascii: "u")
                else { throw syntaxError("a \\u escape holds an unpaired surrogate") }
                position += 2
                let low = try readHex4()
                guard (0xDC00..<0xE000).contains(low) else {
                    throw syntaxError("a \\u escape holds an unpaired surrogate")
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw syntaxError("a \\u escape holds an unpaired surrogate")
            }
            // Not a surrogate, so always a valid scalar.
            output.append(contentsOf: String(Character(Unicode.Scalar(scalar)!)).utf8)
        default:
            throw syntaxError("a string holds an invalid escape")
        }
    }

    private mutating func readHex4() throws(JSONReadError) -> UInt32 {
        guard bytes.count - position >= 4 else { throw syntaxError("a \\u escape needs 4 hex digits") }
        var value: UInt32 = 0
        for byte in bytes[position..<position + 4] {
            guard let digit = Hex.value(byte) else { throw syntaxError("a \\u escape needs 4 hex digits") }
            value = value << 4 | UInt32(digit)
        }
        position += 4
        return value
    }

    /// A number token checked against the JSON grammar.
    private struct NumberToken {
        let text: Substring
        /// The value when the token is an integer without fraction or exponent that fits 64 bits.
        let integer: Int64?

        var double: Double { Double(text) ?? .nan }
    }

    /// A number as written, checked against the grammar.
    mutating func readNumberText() throws(JSONReadError) -> Substring {
        try readNumber().text
    }

    private mutating func readNumber() throws(JSONReadError) -> NumberToken {
        skipWhitespace()
        switch peek() {
        case UInt8(ascii: "-"), .some(UInt8(ascii: "0")...UInt8(ascii: "9")): return try readNumberToken()
        default: throw typeMismatch("a number")
        }
    }

    private mutating func readNumberToken() throws(JSONReadError) -> NumberToken {
        let start = position
        _ = consume(UInt8(ascii: "-"))
        let integerStart = position
        guard skipDigits() else { throw syntaxError("invalid value") }
        if bytes[integerStart] == UInt8(ascii: "0"), position - integerStart > 1 {
            throw syntaxError("a number has a leading zero")
        }
        var isInteger = true
        if consume(UInt8(ascii: ".")) {
            isInteger = false
            guard skipDigits() else { throw syntaxError("a number has no digits after its decimal point") }
        }
        if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
            isInteger = false
            if !consume(UInt8(ascii: "+")) { _ = consume(UInt8(ascii: "-")) }
            guard skipDigits() else { throw syntaxError("a number has no digits in its exponent") }
        }
        let text = Substring(decoding: bytes[start..<position], as: UTF8.self)
        return NumberToken(text: text, integer: isInteger ? Int64(text) : nil)
    }

    /// Skips `[0-9]*`; false when there were none.
    private mutating func skipDigits() -> Bool {
        let start = position
        while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
            position += 1
        }
        return position > start
    }

    // MARK: Errors

    private func typeMismatch(_ expected: String) -> JSONReadError {
        let found: String
        switch peek() {
        case nil: return syntaxError("the document ends where \(expected) was expected")
        case UInt8(ascii: "{"): found = "an object"
        case UInt8(ascii: "["): found = "an array"
        case UInt8(ascii: "\""): found = "a string"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): found = "a boolean"
        case UInt8(ascii: "n"): found = "null"
        case UInt8(ascii: "-"), .some(UInt8(ascii: "0")...UInt8(ascii: "9")): found = "a number"
        default: return syntaxError("invalid value")
        }
        return JSONReadError(problem: "expected \(expected), found \(found)")
    }

    private func syntaxError(_ problem: String) -> JSONReadError {
        JSONReadError(problem: "not valid JSON at byte \(position): \(problem)")
    }
}

/// Why a JSON document could not be read: where (the keys and indexes leading to the value) and what was wrong.
public struct JSONReadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Keys and `[index]`es from the top-level value inward; empty for the top level.
    public private(set) var path: [String] = []
    public let problem: String

    public init(problem: String) {
        self.problem = problem
    }

    /// `` `data.status`: expected a number, found a string ``; just the problem at the top level.
    public var description: String {
        guard !path.isEmpty else { return problem }
        var joined = ""
        for component in path {
            if !joined.isEmpty, !component.hasPrefix("[") { joined += "." }
            joined += component
        }
        return "`\(joined)`: \(problem)"
    }

    /// The error as seen from the value that holds the failed one: `component` (a key, or `[index]`) goes in front of
    /// the path. For a decoder that finds a member wanting only after the whole object is read.
    public func inside(_ component: String) -> JSONReadError {
        var error = self
        error.path.insert(component, at: 0)
        return error
    }
}
