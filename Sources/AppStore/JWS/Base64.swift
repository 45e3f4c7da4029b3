/// The two base64 alphabets a JWS uses: base64url without padding for its three parts (RFC 7515 §2) and standard
/// base64 with padding for the DER certificates in `x5c` (RFC 7515 §4.1.6).
public enum Base64 {
    public enum Alphabet: Sendable {
        /// `A–Z a–z 0–9 - _`, no `=` padding.
        case url
        /// `A–Z a–z 0–9 + /`, padded with `=` to a multiple of four characters.
        case standard
    }

    /// Encodes `bytes`; `.url` leaves out the padding.
    public static func encode(_ bytes: some Collection<UInt8>, alphabet: Alphabet) -> String {
        let symbols = alphabet == .url ? urlSymbols : standardSymbols
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity((input.count + 2) / 3 * 4)
        var index = 0
        while index < input.count {
            let chunk = min(3, input.count - index)
            var group = UInt32(input[index]) << 16
            if chunk > 1 { group |= UInt32(input[index + 1]) << 8 }
            if chunk > 2 { group |= UInt32(input[index + 2]) }
            for position in 0...chunk {
                output.append(symbols[Int(group >> UInt32(18 - 6 * position)) & 0x3F])
            }
            if alphabet == .standard, chunk < 3 {
                output.append(contentsOf: [UInt8](repeating: UInt8(ascii: "="), count: 3 - chunk))
            }
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes `text` strictly: only the alphabet's characters; `.url` takes no padding, `.standard` requires exactly
    /// the padding its length needs. Returns nil for anything else (whitespace included).
    public static func decode(_ text: some StringProtocol, alphabet: Alphabet) -> [UInt8]? {
        decode(utf8: text.utf8, alphabet: alphabet)
    }

    /// ``decode(_:alphabet:)`` over the UTF-8 bytes of the text.
    public static func decode(utf8: some Collection<UInt8>, alphabet: Alphabet) -> [UInt8]? {
        var symbols = Array(utf8)
        if alphabet == .standard {
            guard symbols.count % 4 == 0 else { return nil }
            // At most two `=`, at the end; the length check above makes them exactly the ones the length needs.
            for _ in 0..<2 where symbols.last == UInt8(ascii: "=") {
                symbols.removeLast()
            }
        }
        guard symbols.count % 4 != 1 else { return nil }
        let table = alphabet == .url ? urlValues : standardValues
        var valid = true
        let output = [UInt8](unsafeUninitializedCapacity: symbols.count * 3 / 4) { buffer, count in
            table.withUnsafeBufferPointer { table in
                var group: UInt32 = 0
                var bits: UInt32 = 0
                for symbol in symbols {
                    let value = table[Int(symbol)]
                    guard value != invalid else {
                        valid = false
                        break
                    }
                    group = group << 6 | UInt32(value)
                    bits += 6
                    if bits >= 8 {
                        bits -= 8
                        buffer[count] = UInt8(truncatingIfNeeded: group >> bits)
                        count += 1
                    }
                }
            }
        }
        return valid ? output : nil
    }

    private static let urlSymbols = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let standardSymbols = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    private static let invalid: UInt8 = 0xFF
    /// Symbol value by byte, `invalid` for bytes outside the alphabet.
    private static let urlValues = values(urlSymbols)
    private static let standardValues = values(standardSymbols)

    private static func values(_ symbols: [UInt8]) -> [UInt8] {
        var table = [UInt8](repeating: invalid, count: 256)
        for (value, symbol) in symbols.enumerated() { table[Int(symbol)] = UInt8(value) }
        return table
    }
}
