/// Well-formed UTF-8 as Unicode defines it (table 3-7): no overlong forms, no surrogates,
/// nothing above U+10FFFF.
///
/// The standard library's `String(validating:as:)` would do, but it is generic and not
/// specialised across the module boundary, which made it the most expensive step of decoding
/// a typical message.
enum UTF8Validation {
    static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            // Length of the sequence and the allowed range of its second byte.
            let length: Int
            var second: ClosedRange<UInt8> = 0x80...0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; second = 0xA0...0xBF
            case 0xED: length = 3; second = 0x80...0x9F
            case 0xE1...0xEF: length = 3
            case 0xF0: length = 4; second = 0x90...0xBF
            case 0xF4: length = 4; second = 0x80...0x8F
            case 0xF1...0xF3: length = 4
            default: return false
            }
            guard bytes.count - index >= length, second.contains(bytes[index + 1]) else { return false }
            for offset in 2..<length where !(0x80...0xBF).contains(bytes[index + offset]) {
                return false
            }
            index += length
        }
        return true
    }
}
