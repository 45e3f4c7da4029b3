import BoundedText

/// The rules for app user IDs: what the API accepts as a user's identity.
///
/// An app user ID is 1–256 bytes of UTF-8 with:
/// - no control characters: C0 (U+0000–U+001F), DEL (U+007F), C1 (U+0080–U+009F), and also the line and paragraph
///   separators U+2028 and U+2029, which break log lines and JSON-in-JavaScript just as a newline does. Other format
///   characters (zero-width joiners, bidi marks) are allowed: they occur in legitimate text such as emoji sequences.
/// - no leading or trailing whitespace (any Unicode white space, including U+00A0 and U+3000): almost always a
///   copy-paste or concatenation bug, and two IDs that differ only in it would look the same in every tool.
/// - not a placeholder that SDKs and apps send when the real ID is missing (`null`, `undefined`, `0`, ...; see
///   ``degenerateIDs``), compared case-insensitively.
///
/// Anonymous IDs start with exactly ``anonymousPrefix`` and need a non-empty remainder that follows the same rules
/// (so `$anon:` and `$anon:null` are rejected). A differently-cased prefix (`$ANON:x`) is rejected too, because it
/// would be an identified ID that every human reads as anonymous.
///
/// IDs are returned unchanged (no Unicode normalization): storage compares them byte for byte.
public enum AppUserID {
    public static let anonymousPrefix = "$anon:"
    public static let maxByteCount = 256

    /// Placeholders that stand for "no ID", lowercased. Matched case-insensitively against the whole ID and against
    /// the remainder of an anonymous ID.
    public static let degenerateIDs: Set<String> = [
        "null", "undefined", "nil", "none", "0", "anonymous", "(null)", "<null>", "nan", "[object object]",
        "unknown", "-1", "",
    ]

    /// True when `id` is anonymous: it starts with exactly ``anonymousPrefix``.
    public static func isAnonymous(_ id: String) -> Bool {
        id.utf8.starts(with: anonymousPrefix.utf8)
    }

    /// `id` unchanged when it is acceptable as an app user ID; otherwise `INVALID_ARGUMENT` naming `field` and what
    /// is wrong.
    @discardableResult
    public static func validate(_ id: String, field: String = "app_user_id") throws(DomainError) -> String {
        if let problem = problem(with: id, field: field) { throw .invalidRequest(problem) }
        return id
    }

    /// What is wrong with `id`, as a message naming `field`; nil when it is acceptable.
    public static func problem(with id: String, field: String = "app_user_id") -> String? {
        if isOrdinaryASCII(id) { return nil }
        let byteCount = id.utf8.count
        if byteCount == 0 { return "\(field) is empty; an app user ID must be 1 to \(maxByteCount) bytes of UTF-8" }
        if byteCount > maxByteCount {
            return "\(field) is \(byteCount) bytes of UTF-8; the limit is \(maxByteCount)"
        }
        if let problem = textProblem(id, field: field) { return problem }

        if !isAnonymous(id), startsWithAnonymousPrefixIgnoringCase(id) {
            return "\(field) starts with \(quoted(String(id.prefix(anonymousPrefix.count)))); anonymous IDs start with "
                + "exactly \(quoted(anonymousPrefix)) (lowercase)"
        }
        if isAnonymous(id) {
            let remainder = String(decoding: id.utf8.dropFirst(anonymousPrefix.utf8.count), as: UTF8.self)
            if remainder.isEmpty {
                return "\(field) is just the anonymous prefix \(quoted(anonymousPrefix)); "
                    + "an anonymous ID needs a unique part after it"
            }
            if isWhitespace(remainder.unicodeScalars.first!) {
                return "\(field) has whitespace right after the anonymous prefix \(quoted(anonymousPrefix))"
            }
            if degenerateIDs.contains(remainder.lowercased()) {
                return "\(field) \(quoted(id)) is the anonymous prefix followed by the placeholder "
                    + "\(quoted(remainder)), which SDKs send when the real ID is missing; "
                    + "generate a unique anonymous ID (for example a random UUID)"
            }
            return nil
        }
        // Placeholders are short: longer IDs skip the lowercased copy (this runs on every call).
        if byteCount <= longestDegenerateID, degenerateIDs.contains(id.lowercased()) {
            return "\(field) \(quoted(id)) is a placeholder that SDKs and apps send when the real ID is missing, "
                + "not a user ID; send the user's real ID, or an anonymous ID starting with \(quoted(anonymousPrefix))"
        }
        return nil
    }

    private static let longestDegenerateID = degenerateIDs.map(\.utf8.count).max() ?? 0
    private static let degenerateIDBytes = degenerateIDs.map { Array($0.utf8) }

    /// The common case, decided without building strings (this runs on every call): printable ASCII without spaces,
    /// not starting with `$` (anonymous-looking IDs take the full path), and no placeholder in any case.
    private static func isOrdinaryASCII(_ id: String) -> Bool {
        var id = id
        return id.withUTF8 { bytes in
            guard !bytes.isEmpty, bytes.count <= maxByteCount, bytes[0] != UInt8(ascii: "$") else { return false }
            for byte in bytes where byte <= 0x20 || byte >= 0x7F { return false }
            guard bytes.count <= longestDegenerateID else { return true }
            return !degenerateIDBytes.contains { placeholder in
                placeholder.count == bytes.count && zip(placeholder, bytes).allSatisfy { $0 == asciiLowercased($1) }
            }
        }
    }

    private static func startsWithAnonymousPrefixIgnoringCase(_ id: String) -> Bool {
        let prefix = anonymousPrefix.utf8
        guard id.utf8.count >= prefix.count else { return false }
        return zip(id.utf8, prefix).allSatisfy { byte, expected in asciiLowercased(byte) == expected }
    }

    private static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }

    /// Control characters and surrounding whitespace; `text` is non-empty.
    private static func textProblem(_ text: String, field: String) -> String? {
        var byteOffset = 0
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                return "\(field) contains the control character \(codePoint(scalar)) at byte offset \(byteOffset); "
                    + "control characters (including line breaks and tabs) are not allowed"
            }
            byteOffset += UTF8.width(scalar)
        }
        if isWhitespace(text.unicodeScalars.first!) {
            return "\(field) starts with whitespace (\(codePoint(text.unicodeScalars.first!))); "
                + "remove leading and trailing whitespace"
        }
        if isWhitespace(text.unicodeScalars.last!) {
            return "\(field) ends with whitespace (\(codePoint(text.unicodeScalars.last!))); "
                + "remove leading and trailing whitespace"
        }
        return nil
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        ControlCharacters.contains(scalar)
    }

    static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isWhitespace
    }

    static func codePoint(_ scalar: Unicode.Scalar) -> String {
        ControlCharacters.codePoint(scalar)
    }

    /// A value in double quotes for a message; only called on text without control characters.
    static func quoted(_ text: String) -> String {
        "\"" + text + "\""
    }
}

extension DomainError {
    /// What a call an app makes for its current user answers for an alias (an anonymous ID merged into an identified
    /// customer): an anonymous session never acts as the identified user. `action` says what the app does, such as
    /// "sets the attributes of".
    static func aliasOfAnotherUser(_ appUserID: String, anApp action: String, file: String = #fileID, line: Int = #line)
        -> DomainError
    {
        .permissionDenied(
            "app_user_id \(appUserID.quotedForMessage) is an alias of another user's ID; an app \(action) its current "
                + "user, by the app user ID Identify returned.", file: file, line: line)
    }
}
