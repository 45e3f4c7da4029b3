/// The characters no ID may hold and no message may echo raw: C0 and C1 controls, DEL, and the Unicode line and
/// paragraph separators. A terminal, a log viewer or an HTTP client shown one acts on it (a NUL ends a C string, an
/// escape sequence recolours or rewrites a terminal line, a line break forges a new line).
public enum ControlCharacters {
    public static func contains(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029: true
        default: false
        }
    }

    /// `U+0000`: how a message names a character, at least four hex digits.
    public static func codePoint(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// `text` with each control character written as `<U+0000>`, so it can be shown as it is.
    public static func escaped(_ text: some StringProtocol) -> String {
        guard text.unicodeScalars.contains(where: contains) else { return String(text) }
        var result = ""
        for scalar in text.unicodeScalars {
            if contains(scalar) { result += "<" + codePoint(scalar) + ">" } else { result.unicodeScalars.append(scalar) }
        }
        return result
    }
}
