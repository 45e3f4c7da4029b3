/// How text goes inside a JSON string (RFC 8259 §7), written once for every JSON this server writes (``JSONValue``
/// and the logger's JSON lines): `"` and `\` escaped, line feed, carriage return and tab by name, the other control
/// characters and DEL as `\u00XX`, every other byte (UTF-8 included) as it is.
public enum JSONStringEscape {
    /// The most bytes one byte of text becomes (`\u00XX`).
    public static let maximumExpansion = 6

    /// Gives `emit` the bytes that stand for `byte` inside a JSON string. Inlinable: the logger calls it for every
    /// byte of every string it writes as JSON.
    @inlinable
    public static func write(_ byte: UInt8, to emit: (UInt8) -> Void) {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"):
            emit(UInt8(ascii: "\\"))
            emit(byte)
        case UInt8(ascii: "\n"):
            emit(UInt8(ascii: "\\"))
            emit(UInt8(ascii: "n"))
        case UInt8(ascii: "\r"):
            emit(UInt8(ascii: "\\"))
            emit(UInt8(ascii: "r"))
        case UInt8(ascii: "\t"):
            emit(UInt8(ascii: "\\"))
            emit(UInt8(ascii: "t"))
        case 0..<0x20, 0x7F:
            for character in "\\u00".utf8 { emit(character) }
            emit(hexDigit(byte >> 4))
            emit(hexDigit(byte & 0xF))
        default:
            emit(byte)
        }
    }

    @inlinable
    static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
