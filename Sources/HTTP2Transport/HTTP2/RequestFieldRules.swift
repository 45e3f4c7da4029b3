import Glibc
import HTTP1

/// RFC 9113 §8's rules for the fields of a request, as nghttp2's HTTP messaging layer (`nghttp2_http.c`) applies them
/// to a server's streams. Server sessions turn that layer off (`nghttp2_option_set_no_http_messaging`): it matched
/// every name against nghttp2's token table and scanned every byte of every field, a fourteenth of a small call's
/// instructions, while the connection reads each field anyway. These rules run there instead, with the outcome
/// nghttp2's had with no invalid-header callback: a request breaking any of them is never served, and its stream is
/// reset with PROTOCOL_ERROR.
///
/// One value per header block (a request head, or the trailers after a body); the connection says what arrived and
/// acts on the answers.
struct RequestFieldRules {
    enum Block { case head, trailers }

    private struct Seen: OptionSet {
        let rawValue: UInt16
        static let method = Seen(rawValue: 1 << 0)
        static let path = Seen(rawValue: 1 << 1)
        static let scheme = Seen(rawValue: 1 << 2)
        static let authority = Seen(rawValue: 1 << 3)
        static let host = Seen(rawValue: 1 << 4)
        /// A regular field came: no pseudo-header may follow (§8.3).
        static let regularField = Seen(rawValue: 1 << 5)
        static let connectMethod = Seen(rawValue: 1 << 6)
        static let optionsMethod = Seen(rawValue: 1 << 7)
        /// `http` or `https`, whose `:path` must be a path (or `*` for OPTIONS).
        static let httpScheme = Seen(rawValue: 1 << 8)
        static let absolutePath = Seen(rawValue: 1 << 9)
        static let asteriskPath = Seen(rawValue: 1 << 10)
    }

    private let block: Block
    private var seen: Seen = []
    private var declaredLength: Int?

    init(_ block: Block) {
        self.block = block
    }

    /// Whether the field may come here; false is a stream error. `known` is the name matched (``KnownHeader``):
    /// those names are valid as they are.
    mutating func accept(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, known: KnownHeader?) -> Bool {
        switch known {
        case .method, .path, .scheme, .authority:
            return acceptPseudoHeader(known!, value)
        case nil:
            // Any other pseudo-header (`:protocol` too: extended CONNECT, RFC 8441, is not enabled), or a name
            // that is not a lowercase token.
            seen.insert(.regularField)
            return name.first != UInt8(ascii: ":") && !name.isEmpty && Self.all(name, are: .name)
                && Self.isFieldValue(value)
        case .te:
            // The one connection-specific field allowed, with the one value allowed (§8.2.2).
            seen.insert(.regularField)
            return Self.matchesIgnoringCase(value, "trailers")
        case .host:
            seen.insert(.regularField)
            // Neither routing nor framing has a place in trailers (RFC 9110 §6.5.1).
            return block == .head && accept(.host, value: value, valid: Self.all(value, are: .authority))
        case .contentLength:
            seen.insert(.regularField)
            guard block == .head, declaredLength == nil, let length = HTTP1Grammar.decimalValue(bytes: value) else {
                return false
            }
            declaredLength = length
            return true
        case .connectionSpecific:
            return false
        case .contentType, .userAgent, .grpcTimeout, .grpcEncoding, .grpcAcceptEncoding:
            seen.insert(.regularField)
            return Self.isFieldValue(value)
        }
    }

    private mutating func acceptPseudoHeader(_ known: KnownHeader, _ value: UnsafeRawBufferPointer) -> Bool {
        guard block == .head, !seen.contains(.regularField) else { return false }
        switch known {
        case .path:
            if value.first == UInt8(ascii: "/") { seen.insert(.absolutePath) }
            if value.count == 1, value[0] == UInt8(ascii: "*") { seen.insert(.asteriskPath) }
            return accept(.path, value: value, valid: Self.all(value, are: .path))
        case .method:
            if Self.matches(value, "CONNECT") { seen.insert(.connectMethod) }
            if Self.matches(value, "OPTIONS") { seen.insert(.optionsMethod) }
            return accept(.method, value: value, valid: Self.all(value, are: .token))
        case .scheme:
            if Self.matchesIgnoringCase(value, "http") || Self.matchesIgnoringCase(value, "https") {
                seen.insert(.httpScheme)
            }
            return accept(.scheme, value: value, valid: Self.isScheme(value))
        default:
            return accept(.authority, value: value, valid: Self.all(value, are: .authority))
        }
    }

    /// A field that may come once, with a value that is not empty.
    private mutating func accept(_ field: Seen, value: UnsafeRawBufferPointer, valid: Bool) -> Bool {
        guard valid, !value.isEmpty, !seen.contains(field) else { return false }
        seen.insert(field)
        return true
    }

    /// Whether a whole request head has what every request needs (§8.3.1): CONNECT an authority and neither
    /// `:scheme` nor `:path`; any other method `:method`, `:scheme`, `:path` and an authority (`:authority` or `host`,
    /// which nghttp2 requires too), with a path starting with `/` for `http` and `https` (or `*` for OPTIONS).
    var headIsComplete: Bool {
        if seen.contains(.connectMethod) {
            return seen.contains(.authority) && seen.isDisjoint(with: [.scheme, .path])
        }
        guard seen.isSuperset(of: [.method, .scheme, .path]), !seen.isDisjoint(with: [.authority, .host]) else {
            return false
        }
        return !seen.contains(.httpScheme) || seen.contains(.absolutePath)
            || seen.isSuperset(of: [.optionsMethod, .asteriskPath])
    }

    /// What the head says of the body's length (a CONNECT's `content-length` says nothing).
    var bodyLength: RequestBodyLength {
        RequestBodyLength(declared: seen.contains(.connectMethod) ? nil : declaredLength)
    }

    // MARK: Bytes

    private static func matches(_ bytes: UnsafeRawBufferPointer, _ text: StaticString) -> Bool {
        bytes.count == text.utf8CodeUnitCount && memcmp(bytes.baseAddress!, text.utf8Start, bytes.count) == 0
    }

    private static func matchesIgnoringCase(_ bytes: UnsafeRawBufferPointer, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        return (0..<bytes.count).allSatisfy { bytes[$0] | 0x20 == lowercase.utf8Start[$0] }
    }

    /// A regular field's value: no NUL, CR, LF or other control byte but HTAB, and no space or HTAB at either end
    /// (§8.2.1).
    private static func isFieldValue(_ value: UnsafeRawBufferPointer) -> Bool {
        guard let first = value.first, let last = value.last else { return true }
        let space = UInt8(ascii: " ")
        let tab = UInt8(ascii: "\t")
        guard first != space, first != tab, last != space, last != tab else { return false }
        return all(value, are: .value)
    }

    /// `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )` (RFC 3986 §3.1).
    private static func isScheme(_ value: UnsafeRawBufferPointer) -> Bool {
        guard let first = value.first, first | 0x20 >= UInt8(ascii: "a"), first | 0x20 <= UInt8(ascii: "z") else {
            return false
        }
        // Indexed rather than `dropFirst()`: that slice is a generic call per request (`:scheme` is on every one).
        for index in 1..<value.count {
            switch value[index] {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
                continue
            default: return false
            }
        }
        return true
    }

    /// What a byte may be part of; nghttp2's tables (`nghttp2_helper.c`) as one table of flags.
    struct ByteClass: OptionSet {
        let rawValue: UInt8
        /// A field name: a token in lowercase (RFC 9110 §5.1, RFC 9113 §8.2.1).
        static let name = ByteClass(rawValue: 1 << 0)
        /// A field value: HTAB, visible ASCII, space, or any byte of 0x80 and above (RFC 9110 §5.5).
        static let value = ByteClass(rawValue: 1 << 1)
        /// A token: a method (RFC 9110 §5.6.2).
        static let token = ByteClass(rawValue: 1 << 2)
        /// A `:path`: visible ASCII or any byte of 0x80 and above.
        static let path = ByteClass(rawValue: 1 << 3)
        /// An authority: RFC 3986's host and port characters, as nghttp2 accepts them.
        static let authority = ByteClass(rawValue: 1 << 4)

        init(rawValue: UInt8) {
            self.rawValue = rawValue
        }

        init(of byte: UInt8) {
            let letterOrDigit =
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            let isUpper = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            let isToken = HTTP1Grammar.isTokenChar(byte)
            var classes: ByteClass = []
            if isToken { classes.insert(.token) }
            if isToken && !isUpper { classes.insert(.name) }
            if HTTP1Grammar.isFieldValueChar(byte) { classes.insert(.value) }
            if (0x21...0x7E).contains(byte) || byte >= 0x80 { classes.insert(.path) }
            if letterOrDigit || Self.isAmong(byte, "!$%&'()*+,-.:;=@[]_~") { classes.insert(.authority) }
            self = classes
        }

        private static func isAmong(_ byte: UInt8, _ characters: StaticString) -> Bool {
            UnsafeBufferPointer(start: characters.utf8Start, count: characters.utf8CodeUnitCount).contains(byte)
        }
    }

    /// Whether every byte is of `byteClass`: a table lookup and no branch per byte (the compiler unrolls it).
    static func all(_ bytes: UnsafeRawBufferPointer, are byteClass: ByteClass) -> Bool {
        let table = byteClasses
        var common: UInt8 = 0xFF
        for byte in bytes { common &= table[Int(byte)] }
        return common & byteClass.rawValue != 0
    }

    /// ``ByteClass`` of each byte value. Made once, never changed or freed: safe to share.
    nonisolated(unsafe) private static let byteClasses: UnsafePointer<UInt8> = {
        let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
        for byte in UInt8.min...UInt8.max { table[Int(byte)] = ByteClass(of: byte).rawValue }
        return UnsafePointer(table)
    }()
}

/// A request body's length against the `content-length` its head declared (RFC 9113 §8.1.1).
struct RequestBodyLength {
    private let declared: Int?
    private var received = 0

    init(declared: Int?) {
        self.declared = declared
    }

    /// Counts `count` more bytes: false once more arrived than declared.
    mutating func add(_ count: Int) -> Bool {
        received += count
        guard let declared else { return true }
        return received <= declared
    }

    /// Whether a body that has ended had the declared length.
    var endIsValid: Bool { declared.map { $0 == received } ?? true }
}
