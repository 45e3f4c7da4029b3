/// Hexadecimal: bytes as two digits each, and single digits for the escapes other formats write (`%XX`, `\u00XX`).
public enum Hex {
    private static let lowercase = Array("0123456789abcdef".utf8)
    private static let uppercase = Array("0123456789ABCDEF".utf8)

    /// Two digits a byte, lowercase unless `uppercase`.
    public static func encode(_ bytes: some Collection<UInt8>, uppercase: Bool = false) -> String {
        let digits = uppercase ? Self.uppercase : lowercase
        return String(unsafeUninitializedCapacity: bytes.count * 2) { output in
            var index = 0
            for byte in bytes {
                output[index] = digits[Int(byte >> 4)]
                output[index + 1] = digits[Int(byte & 0x0F)]
                index += 2
            }
            return index
        }
    }

    /// The digit for `value` (0–15) as an ASCII byte.
    @inlinable
    public static func digit(_ value: UInt8, uppercase: Bool = false) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : (uppercase ? UInt8(ascii: "A") : UInt8(ascii: "a")) + value - 10
    }

    /// Decodes upper- or lowercase hex; nil for odd lengths or other characters.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = value(utf8[index]), let low = value(utf8[index + 1]) else { return nil }
            output.append(high << 4 | low)
            index += 2
        }
        return output
    }

    /// The value of one hex digit (either case), nil for any other byte.
    @inlinable
    public static func value(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
