/// A parsed JSON value that remembers where it was, for configuration errors that point at a line.
///
/// A strict RFC 8259 parser, small on purpose: configuration is read at startup and on SIGHUP only. Unlike
/// Foundation's it rejects duplicate object keys (a duplicated `"secret_keys"` must not silently drop one list) and
/// keeps member order and line numbers. App Store payloads, machine-written and read on a hot path, are read with
/// `Encodings.JSONReader` instead (see AppStore/Payloads/SignedPayload.swift).
struct JSONNode: Equatable, Sendable {
    enum Value: Equatable, Sendable {
        case null
        case bool(Bool)
        /// The number as written; configuration has no numeric fields, so it is only ever reported as a wrong type.
        case number(String)
        case string(String)
        case array([JSONNode])
        case object([Member])
    }

    struct Member: Equatable, Sendable {
        var key: String
        var value: JSONNode
    }

    var value: Value
    /// 1-based line of the value's first character.
    var line: Int

    /// "a string", "an array", ... for type-mismatch messages.
    var typeDescription: String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// Why a document is not JSON: the position and what was expected.
struct JSONSyntaxError: Error, Equatable, Sendable {
    var line: Int
    var column: Int
    var message: String
    /// The object path of a duplicate key (`tenants[0].products`), when that is the problem.
    var path: String?
}

/// Parses one JSON document from UTF-8 bytes.
struct JSONParser {
    private let bytes: [UInt8]
    private var index = 0
    private var line = 1
    private var lineStart = 0
    private var depth = 0
    private static let maxDepth = 64

    static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONNode {
        var parser = JSONParser(bytes: bytes)
        return try parser.document()
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private mutating func document() throws(JSONSyntaxError) -> JSONNode {
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw JSONSyntaxError(line: 1, column: 1, message: "the file is not valid UTF-8")
        }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }  // A UTF-8 byte-order mark is tolerated.
        skipWhitespace()
        if index == bytes.count { throw error("the file is empty; expected a JSON object") }
        let root = try value(path: "")
        skipWhitespace()
        if index < bytes.count { throw error("unexpected \(describeCurrent()) after the end of the JSON document") }
        return root
    }

    private mutating func value(path: String) throws(JSONSyntaxError) -> JSONNode {
        skipWhitespace()
        guard index < bytes.count else { throw error("unexpected end of file; expected a value") }
        let startLine = line
        switch bytes[index] {
        case UInt8(ascii: "{"): return JSONNode(value: try object(path: path), line: startLine)
        case UInt8(ascii: "["): return JSONNode(value: try array(path: path), line: startLine)
        case UInt8(ascii: "\""): return JSONNode(value: .string(try string()), line: startLine)
        case UInt8(ascii: "t"): try literal("true"); return JSONNode(value: .bool(true), line: startLine)
        case UInt8(ascii: "f"): try literal("false"); return JSONNode(value: .bool(false), line: startLine)
        case UInt8(ascii: "n"): try literal("null"); return JSONNode(value: .null, line: startLine)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return JSONNode(value: .number(try number()), line: startLine)
        default: throw error("unexpected \(describeCurrent()); expected a value")
        }
    }

    private mutating func object(path: String) throws(JSONSyntaxError) -> JSONNode.Value {
        try enter()
        defer { depth -= 1 }
        index += 1
        var members: [JSONNode.Member] = []
        var seen: Set<String> = []
        skipWhitespace()
        if peek(UInt8(ascii: "}")) {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard peek(UInt8(ascii: "\"")) else { throw error("unexpected \(describeCurrent()); expected a quoted key") }
            let keyLine = line
            let keyColumn = column
            let key = try string()
            let memberPath = path.isEmpty ? key : path + "." + key
            guard seen.insert(key).inserted else {
                throw JSONSyntaxError(
                    line: keyLine, column: keyColumn, message: "duplicate key \"\(key)\"", path: memberPath)
            }
            skipWhitespace()
            guard peek(UInt8(ascii: ":")) else { throw error("unexpected \(describeCurrent()); expected ':' after a key") }
            index += 1
            members.append(JSONNode.Member(key: key, value: try value(path: memberPath)))
            skipWhitespace()
            if peek(UInt8(ascii: ",")) {
                index += 1
                skipWhitespace()
                if peek(UInt8(ascii: "}")) { throw error("trailing comma before '}'") }
                continue
            }
            if peek(UInt8(ascii: "}")) {
                index += 1
                return .object(members)
            }
            throw error("unexpected \(describeCurrent()); expected ',' or '}'")
        }
    }

    private mutating func array(path: String) throws(JSONSyntaxError) -> JSONNode.Value {
        try enter()
        defer { depth -= 1 }
        index += 1
        var elements: [JSONNode] = []
        skipWhitespace()
        if peek(UInt8(ascii: "]")) {
            index += 1
            return .array(elements)
        }
        while true {
            elements.append(try value(path: "\(path)[\(elements.count)]"))
            skipWhitespace()
            if peek(UInt8(ascii: ",")) {
                index += 1
                skipWhitespace()
                if peek(UInt8(ascii: "]")) { throw error("trailing comma before ']'") }
                continue
            }
            if peek(UInt8(ascii: "]")) {
                index += 1
                return .array(elements)
            }
            throw error("unexpected \(describeCurrent()); expected ',' or ']'")
        }
    }

    private mutating func string() throws(JSONSyntaxError) -> String {
        index += 1  // Opening quote.
        var output: [UInt8] = []
        while true {
            guard index < bytes.count else { throw error("unterminated string") }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: output, as: UTF8.self)
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw error("unterminated string") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): output.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): output.append(UInt8(ascii: "\\"))
                case UInt8(ascii: "/"): output.append(UInt8(ascii: "/"))
                case UInt8(ascii: "b"): output.append(0x08)
                case UInt8(ascii: "f"): output.append(0x0C)
                case UInt8(ascii: "n"): output.append(0x0A)
                case UInt8(ascii: "r"): output.append(0x0D)
                case UInt8(ascii: "t"): output.append(0x09)
                case UInt8(ascii: "u"): output.append(contentsOf: try unicodeEscape())
                default:
                    index -= 1
                    throw error("invalid escape '\\\(describeByte(escape))' in a string")
                }
            case 0x00..<0x20:
                if byte == 0x0A { throw error("unterminated string (a line break inside a string must be written \\n)") }
                throw error("raw control character in a string; escape it")
            default:
                output.append(byte)
                index += 1
            }
        }
    }

    /// The character of a `\uXXXX` escape (after the `u`), joining a surrogate pair, as UTF-8.
    private mutating func unicodeEscape() throws(JSONSyntaxError) -> [UInt8] {
        let first = try hex4()
        var scalarValue = first
        if (0xD800...0xDBFF).contains(first) {
            guard bytes[index...].starts(with: Array("\\u".utf8)) else {
                throw error("a high surrogate \\u escape must be followed by a low surrogate")
            }
            index += 2
            let second = try hex4()
            guard (0xDC00...0xDFFF).contains(second) else { throw error("invalid low surrogate in a \\u escape") }
            scalarValue = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(first) {
            throw error("unpaired low surrogate in a \\u escape")
        }
        guard let scalar = Unicode.Scalar(scalarValue) else { throw error("invalid \\u escape") }
        return Array(String(Character(scalar)).utf8)
    }

    private mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        var result: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count else { throw error("unterminated \\u escape") }
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("expected four hex digits after \\u")
            }
            result = result << 4 | digit
            index += 1
        }
        return result
    }

    private mutating func number() throws(JSONSyntaxError) -> String {
        let start = index
        if peek(UInt8(ascii: "-")) { index += 1 }
        if peek(UInt8(ascii: "0")) {
            index += 1
        } else if digits() == 0 {
            throw error("invalid number")
        }
        if peek(UInt8(ascii: ".")) {
            index += 1
            if digits() == 0 { throw error("invalid number: expected digits after '.'") }
        }
        if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
            index += 1
            if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { index += 1 }
            if digits() == 0 { throw error("invalid number: expected digits in the exponent") }
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func digits() -> Int {
        var count = 0
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
            index += 1
            count += 1
        }
        return count
    }

    private mutating func literal(_ word: String) throws(JSONSyntaxError) {
        let expected = Array(word.utf8)
        guard bytes[index...].starts(with: expected) else {
            throw error("unexpected \(describeCurrent()); expected a value (strings need double quotes)")
        }
        index += expected.count
    }

    private mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        if depth > Self.maxDepth { throw error("nested more than \(Self.maxDepth) levels deep") }
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"): index += 1
            case UInt8(ascii: "\n"):
                index += 1
                line += 1
                lineStart = index
            default: return
            }
        }
    }

    private func peek(_ byte: UInt8) -> Bool {
        index < bytes.count && bytes[index] == byte
    }

    /// 1-based column in characters (not bytes) of the current position.
    private var column: Int {
        String(decoding: bytes[lineStart..<min(index, bytes.count)], as: UTF8.self).count + 1
    }

    private func describeCurrent() -> String {
        guard index < bytes.count else { return "end of file" }
        return "'\(describeByte(bytes[index]))'"
    }

    private func describeByte(_ byte: UInt8) -> String {
        if byte >= 0x20 && byte < 0x7F { return String(UnicodeScalar(byte)) }
        return "\\u{\(String(byte, radix: 16))}"
    }

    private func error(_ message: String) -> JSONSyntaxError {
        JSONSyntaxError(line: line, column: column, message: message)
    }
}
