/// Base64 (RFC 4648) in both alphabets, for every user in the project: gRPC `-bin` metadata (standard alphabet, sent
/// unpadded, padding optional when received), the parts of a compact JWS (URL alphabet, no padding, RFC 7515 §2) and
/// the DER certificates of its `x5c` header (standard alphabet, exact padding, RFC 7515 §4.1.6).
public enum Base64 {
    public enum Alphabet: Sendable {
        /// `A–Z a–z 0–9 + /`.
        case standard
        /// `A–Z a–z 0–9 - _`.
        case url
    }

    /// What decoding accepts at the end of the text. Anything but the alphabet (whitespace included) is refused in
    /// every case, as is a length no encoding has (one symbol past a multiple of four).
    public enum Padding: Sendable {
        /// Exactly the `=` the length needs: the text is a multiple of four characters.
        case required
        /// No `=` at all.
        case forbidden
        /// Any run of trailing `=` is ignored (gRPC `-bin` metadata: "implementations MUST accept padded and
        /// unpadded values").
        case optional
    }

    /// Encodes `bytes`; `padded` appends `=` up to a multiple of four characters.
    public static func encode(_ bytes: some Collection<UInt8>, alphabet: Alphabet = .standard, padded: Bool) -> String {
        let symbols = alphabet == .url ? urlSymbols : standardSymbols
        if let string = bytes.withContiguousStorageIfAvailable({ encode($0, symbols: symbols, padded: padded) }) {
            return string
        }
        return Array(bytes).withUnsafeBufferPointer { encode($0, symbols: symbols, padded: padded) }
    }

    /// Decodes `text`; nil when it is not base64 of `alphabet` with `padding`.
    @inlinable
    public static func decode(_ text: some StringProtocol, alphabet: Alphabet = .standard, padding: Padding) -> [UInt8]? {
        decode(utf8: text.utf8, alphabet: alphabet, padding: padding)
    }

    /// ``decode(_:alphabet:padding:)`` over UTF-8 bytes.
    public static func decode(utf8: some Collection<UInt8>, alphabet: Alphabet = .standard, padding: Padding) -> [UInt8]? {
        let values = alphabet == .url ? urlValues : standardValues
        if let result = utf8.withContiguousStorageIfAvailable({ decode($0, values: values, padding: padding) }) {
            return result
        }
        return Array(utf8).withUnsafeBufferPointer { decode($0, values: values, padding: padding) }
    }

    private static func encode(_ input: UnsafeBufferPointer<UInt8>, symbols: [UInt8], padded: Bool) -> String {
        let whole = input.count / 3 * 3
        let rest = input.count - whole
        let length = whole / 3 * 4 + (rest == 0 ? 0 : padded ? 4 : rest + 1)
        return symbols.withUnsafeBufferPointer { symbols in
            String(unsafeUninitializedCapacity: length) { output in
                var out = 0
                var index = 0
                while index < whole {
                    let group = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
                    output[out] = symbols[Int(group >> 18)]
                    output[out + 1] = symbols[Int(group >> 12 & 0x3F)]
                    output[out + 2] = symbols[Int(group >> 6 & 0x3F)]
                    output[out + 3] = symbols[Int(group & 0x3F)]
                    out += 4
                    index += 3
                }
                if rest > 0 {
                    var group = UInt32(input[index]) << 16
                    if rest == 2 { group |= UInt32(input[index + 1]) << 8 }
                    output[out] = symbols[Int(group >> 18)]
                    output[out + 1] = symbols[Int(group >> 12 & 0x3F)]
                    out += 2
                    if rest == 2 {
                        output[out] = symbols[Int(group >> 6 & 0x3F)]
                        out += 1
                    }
                    while padded, out < length {
                        output[out] = UInt8(ascii: "=")
                        out += 1
                    }
                }
                return out
            }
        }
    }

    private static func decode(_ input: UnsafeBufferPointer<UInt8>, values: [UInt8], padding: Padding) -> [UInt8]? {
        var count = input.count
        switch padding {
        case .forbidden: break
        case .optional:
            while count > 0, input[count - 1] == UInt8(ascii: "=") { count -= 1 }
        case .required:
            guard count % 4 == 0 else { return nil }
            // At most two `=`, at the end; with the length a multiple of four they are the ones the length needs.
            for _ in 0..<2 where count > 0 && input[count - 1] == UInt8(ascii: "=") { count -= 1 }
        }
        guard count % 4 != 1 else { return nil }
        let whole = count / 4 * 4
        let rest = count - whole
        var valid = true
        let output = values.withUnsafeBufferPointer { values in
            [UInt8](unsafeUninitializedCapacity: whole / 4 * 3 + max(0, rest - 1)) { buffer, written in
                // Four symbols at a time: one check of their or-ed values finds any byte outside the alphabet
                // (`invalid` has the high bit, no symbol value does). Tokens and certificates are kilobytes each.
                var index = 0
                while index < whole {
                    let a = values[Int(input[index])], b = values[Int(input[index + 1])]
                    let c = values[Int(input[index + 2])], d = values[Int(input[index + 3])]
                    guard (a | b | c | d) & 0x80 == 0 else {
                        valid = false
                        return
                    }
                    let group = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                    buffer[written] = UInt8(truncatingIfNeeded: group >> 16)
                    buffer[written + 1] = UInt8(truncatingIfNeeded: group >> 8)
                    buffer[written + 2] = UInt8(truncatingIfNeeded: group)
                    written += 3
                    index += 4
                }
                // Two or three symbols left: one or two bytes (the unused low bits are ignored).
                guard rest > 0 else { return }
                var group: UInt32 = 0
                for offset in 0..<rest {
                    let value = values[Int(input[whole + offset])]
                    guard value != invalid else {
                        valid = false
                        return
                    }
                    group = group << 6 | UInt32(value)
                }
                group <<= 6 * UInt32(4 - rest)
                buffer[written] = UInt8(truncatingIfNeeded: group >> 16)
                written += 1
                if rest == 3 {
                    buffer[written] = UInt8(truncatingIfNeeded: group >> 8)
                    written += 1
                }
            }
        }
        return valid ? output : nil
    }

    private static let standardSymbols = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let urlSymbols = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static let invalid: UInt8 = 0xFF
    /// Symbol value by byte, `invalid` for bytes outside the alphabet.
    private static let standardValues = values(standardSymbols)
    private static let urlValues = values(urlSymbols)

    private static func values(_ symbols: [UInt8]) -> [UInt8] {
        var table = [UInt8](repeating: invalid, count: 256)
        for (value, symbol) in symbols.enumerated() { table[Int(symbol)] = UInt8(value) }
        return table
    }
}
