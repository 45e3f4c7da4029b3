import Encodings

/// Byte classes from RFC 9110 / RFC 9112 / RFC 3986 used by the HTTP/1.1 parser and serializer, and the ones HTTP/2's
/// request rules share with them (HTTP2Transport's `RequestFieldRules`, which test every byte of a request's fields:
/// those predicates are `@inlinable`, to stay inlined across the module boundary).
package enum HTTP1Grammar {
    package static let cr: UInt8 = 0x0D
    package static let lf: UInt8 = 0x0A
    package static let space: UInt8 = 0x20
    package static let tab: UInt8 = 0x09

    /// tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA
    @inlinable @inline(__always)
    package static func isTokenChar(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    /// field-vchar / SP / HTAB: VCHAR, obs-text (0x80-0xFF), space and tab. Everything else is a control character.
    @inlinable @inline(__always)
    package static func isFieldValueChar(_ byte: UInt8) -> Bool {
        byte == tab || (byte >= 0x20 && byte != 0x7F)
    }

    /// Characters allowed in the path and query of a request target (RFC 3986 pchar / "/" / "?"; `%` is checked separately).
    @inline(__always)
    static func isTargetChar(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        // unreserved punctuation
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        // sub-delims
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
            UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
            UInt8(ascii: "="):
            true
        case UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "%"):
            true
        default:
            false
        }
    }

    /// Characters allowed in a Host value or an absolute-form authority: reg-name / IP-literal plus ":" port.
    @inline(__always)
    static func isAuthorityChar(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "@"):
            false
        case UInt8(ascii: "["), UInt8(ascii: "]"):
            true
        default:
            isTargetChar(byte)
        }
    }

    /// ``decimalValue(_:)`` of raw bytes, specialized in this module: HTTP/2's content-length rule calls it for every
    /// request with a body, and a generic call across the module boundary (`@inlinable` is not honoured there) ran
    /// the collection's iterator through its witnesses, about 250 instructions a request.
    package static func decimalValue(bytes digits: UnsafeRawBufferPointer) -> Int? {
        decimalValue(digits)
    }

    /// `1*DIGIT` as an `Int`: nil when empty, when a byte is not a digit, or when it does not fit.
    @inline(__always)
    package static func decimalValue(_ digits: some Collection<UInt8>) -> Int? {
        guard !digits.isEmpty else { return nil }
        var result = 0
        for digit in digits {
            guard digit &- UInt8(ascii: "0") < 10 else { return nil }
            let (shifted, overflow1) = result.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = shifted.addingReportingOverflow(Int(digit &- UInt8(ascii: "0")))
            if overflow1 || overflow2 { return nil }
            result = sum
        }
        return result
    }

    @inline(__always)
    static func isHexDigit(_ byte: UInt8) -> Bool {
        Hex.value(byte) != nil
    }

    /// Client bytes made safe to quote in an error message: printable ASCII as is, the rest as `\xNN`, truncated.
    static func quote(_ bytes: some Collection<UInt8>, limit: Int = 40) -> String {
        var text = "\""
        for byte in bytes.prefix(limit) {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                text += "\\" + String(UnicodeScalar(byte))
            case 0x20..<0x7F:
                text.unicodeScalars.append(UnicodeScalar(byte))
            case cr: text += "\\r"
            case lf: text += "\\n"
            case tab: text += "\\t"
            default:
                text += "\\x" + Hex.encode(CollectionOfOne(byte), uppercase: true)
            }
        }
        text += bytes.count > limit ? "\"…" : "\""
        return text
    }

    static func quote(_ byte: UInt8) -> String {
        quote(CollectionOfOne(byte))
    }
}
