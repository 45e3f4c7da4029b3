import BoundedText

/// The limits and syntax of customer attributes (README, "Customer attributes"): every refusal names the field and the
/// rule (`INVALID_ARGUMENT`; `PERMISSION_DENIED` for a key the writer may not write), and nothing is written.
///
/// - A customer has at most ``maxKeysPerCustomer`` keys; a call that would leave more is refused (a merge may leave
///   more, and then only calls that add no key pass).
/// - A call changes at most ``maxChangesPerCall`` keys, each once.
/// - A key is 1 to ``maxKeyBytes`` bytes: a letter or digit, then letters, digits, `_`, `-` and `.`; or one of the
///   ``reservedKeys``, which start with `$` (no other key does).
/// - A value is 1 to ``maxValueBytes`` bytes of UTF-8 without control characters or surrounding whitespace (remove a
///   key with `unset_keys` rather than an empty value). The reserved keys have rules of their own; `$phoneNumber`
///   and `$locale` are stored normalised.
public enum AttributeRules {
    public static let maxKeysPerCustomer = 50
    public static let maxChangesPerCall = 50
    public static let maxKeyBytes = 40
    public static let maxValueBytes = 500

    public static let email = "$email"
    public static let displayName = "$displayName"
    public static let phoneNumber = "$phoneNumber"
    public static let locale = "$locale"
    /// The keys with a meaning of their own, in the order the README lists them.
    public static let reservedKeys = [email, displayName, phoneNumber, locale]

    /// `change` checked, with each value as it will be stored. `allowed` says whether the writer may write a key.
    public static func checked(_ change: AttributeChange, allowed: (String) -> Bool, writerName: String) throws(DomainError)
        -> AttributeChange
    {
        let count = change.set.count + change.unset.count
        guard count > 0 else {
            throw .invalidRequest("attributes and unset_keys are both empty; name at least one key to set or unset.")
        }
        guard count <= maxChangesPerCall else {
            throw .invalidRequest("A call changes at most \(maxChangesPerCall) keys; this one names \(count).")
        }
        var seen: Set<String> = []
        var checked = AttributeChange()
        for (index, (key, value)) in change.set.enumerated() {
            let field = "attributes[\(index)]"
            try checkKey(key, field: field + ".key", allowed: allowed, writerName: writerName)
            guard seen.insert(key).inserted else { throw duplicate(key, field: field + ".key") }
            checked.set.append((key, try storedValue(value, key: key, field: field + ".value")))
        }
        for (index, key) in change.unset.enumerated() {
            let field = "unset_keys[\(index)]"
            try checkKey(key, field: field, allowed: allowed, writerName: writerName)
            guard seen.insert(key).inserted else { throw duplicate(key, field: field) }
            checked.unset.append(key)
        }
        return checked
    }

    private static func duplicate(_ key: String, field: String) -> DomainError {
        .invalidRequest("\(field): key \(key.quotedForMessage) is named twice; a call sets or unsets each key once.")
    }

    /// A key's syntax, then whether this writer may write it.
    static func checkKey(_ key: String, field: String, allowed: (String) -> Bool, writerName: String) throws(DomainError) {
        if let problem = keyProblem(key) { throw .invalidRequest("\(field): \(problem).") }
        guard allowed(key) else {
            throw .permissionDenied(
                "\(field): key \(key.quotedForMessage) is not one \(writerName) may write (the tenant's "
                    + "\"attributes\" settings list them).")
        }
    }

    /// What is wrong with `key` as an attribute key; nil when it is one.
    public static func keyProblem(_ key: String) -> String? {
        let bytes = Array(key.utf8)
        guard !bytes.isEmpty else { return "an attribute key is empty; keys are 1 to \(maxKeyBytes) bytes" }
        if bytes[0] == UInt8(ascii: "$") {
            guard reservedKeys.contains(key) else {
                return "key \(ControlCharacters.escaped(key.truncated(toUTF8Bytes: 64)).quotedForMessage) starts with $, "
                    + "which only the reserved keys do: \(reservedKeys.joined(separator: ", "))"
            }
            return nil
        }
        guard bytes.count <= maxKeyBytes else {
            return "key is \(bytes.count) bytes; keys are 1 to \(maxKeyBytes) bytes"
        }
        func isAlphanumeric(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        guard isAlphanumeric(bytes[0]),
            bytes.allSatisfy({ isAlphanumeric($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") })
        else {
            return "key \(ControlCharacters.escaped(key).quotedForMessage) is not a letter or digit followed by letters, "
                + "digits, _, - and ."
        }
        return nil
    }

    /// The value to store for `key`, or why `value` is refused.
    static func storedValue(_ value: String, key: String, field: String) throws(DomainError) -> String {
        if let problem = textProblem(value) { throw .invalidRequest("\(field) (\(key)): \(problem).") }
        let normalised: String
        switch key {
        case email: normalised = try checkEmail(value, field: field)
        case phoneNumber: normalised = try phone(value, field: field)
        case locale: normalised = try languageTag(value, field: field)
        default: normalised = value
        }
        return normalised
    }

    private static func textProblem(_ value: String) -> String? {
        let byteCount = value.utf8.count
        guard byteCount > 0 else { return "the value is empty; remove a key with unset_keys" }
        guard byteCount <= maxValueBytes else { return "the value is \(byteCount) bytes; values are 1 to \(maxValueBytes) bytes" }
        if let scalar = value.unicodeScalars.first(where: AppUserID.isControl) {
            return "the value contains the control character \(AppUserID.codePoint(scalar))"
        }
        if AppUserID.isWhitespace(value.unicodeScalars.first!) || AppUserID.isWhitespace(value.unicodeScalars.last!) {
            return "the value starts or ends with whitespace"
        }
        return nil
    }

    /// An address as people write one (RFC 5321's Mailbox without quoted local parts or address literals, UTF-8 as
    /// RFC 6531 allows): a dot-atom local part of at most 64 bytes, `@`, a domain of at least two labels (letters,
    /// digits, hyphens inside, at most 63 bytes each), at most 254 bytes in all. Stored as given; found ignoring case.
    static func checkEmail(_ value: String, field: String) throws(DomainError) -> String {
        func refuse(_ why: String) -> DomainError {
            .invalidRequest("\(field) ($email): \(value.quotedForMessage) is not an e-mail address: \(why).")
        }
        guard value.utf8.count <= 254 else { throw refuse("an address is at most 254 bytes") }
        let parts = value.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw refuse("it needs exactly one @") }
        let (local, domain) = (parts[0], parts[1])
        guard (1...64).contains(local.utf8.count) else { throw refuse("the part before @ is 1 to 64 bytes") }
        let atext = Set("!#$%&'*+-/=?^_`{|}~".unicodeScalars)
        for atom in local.split(separator: ".", omittingEmptySubsequences: false) {
            guard !atom.isEmpty else { throw refuse("the part before @ has an empty dot-separated part") }
            if let bad = atom.unicodeScalars.first(where: {
                !($0.properties.isAlphabetic || $0.properties.numericType != nil || atext.contains($0) || $0.value > 0x7F)
                    || $0.properties.isWhitespace
            }) {
                throw refuse("the part before @ contains \(AppUserID.codePoint(bad))")
            }
        }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2 else { throw refuse("the domain needs at least two labels (example.com)") }
        for label in labels {
            guard (1...63).contains(label.utf8.count) else { throw refuse("each label of the domain is 1 to 63 bytes") }
            guard label.first != "-", label.last != "-" else { throw refuse("a label of the domain starts or ends with -") }
            if let bad = label.unicodeScalars.first(where: {
                !($0.properties.isAlphabetic || $0.properties.numericType != nil || $0 == "-")
            }) {
                throw refuse("the domain contains \(AppUserID.codePoint(bad))")
            }
        }
        return value
    }

    /// E.164: `+`, a country code not starting with 0, 8 to 15 digits in all. Spaces, hyphens, dots and parentheses
    /// between digits are dropped (`+1 (555) 010-0199` is stored `+15550100199`).
    static func phone(_ value: String, field: String) throws(DomainError) -> String {
        func refuse(_ why: String) -> DomainError {
            .invalidRequest("\(field) ($phoneNumber): \(value.quotedForMessage) is not an E.164 number: \(why).")
        }
        guard value.first == "+" else { throw refuse("it starts with + and the country code") }
        var digits = ""
        for character in value.dropFirst() {
            if let ascii = character.asciiValue, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(ascii) {
                digits.append(character)
            } else if !" -.()".contains(character) {
                throw refuse("only digits, spaces, hyphens, dots and parentheses follow the +")
            }
        }
        guard (8...15).contains(digits.count) else { throw refuse("it has \(digits.count) digits, not 8 to 15") }
        guard digits.first != "0" else { throw refuse("country codes do not start with 0") }
        return "+" + digits
    }

    /// A BCP 47 language tag as platforms give one: a language of 2 or 3 letters, then subtags of 1 to 8 letters
    /// and digits, separated by `-` (`_`, as Apple and Java write locales, is read as `-`). Stored with `-`, the
    /// language lowercased and a two-letter region uppercased (`en_us` is stored `en-US`).
    static func languageTag(_ value: String, field: String) throws(DomainError) -> String {
        func refuse(_ why: String) -> DomainError {
            .invalidRequest("\(field) ($locale): \(value.quotedForMessage) is not a BCP 47 language tag: \(why).")
        }
        guard value.utf8.count <= 35 else { throw refuse("a tag is at most 35 bytes") }
        let subtags = value.split(separator: "-", omittingEmptySubsequences: false)
            .flatMap { $0.split(separator: "_", omittingEmptySubsequences: false) }
        guard let language = subtags.first, (2...3).contains(language.count), language.allSatisfy(\.isASCIILetter) else {
            throw refuse("it starts with a language of 2 or 3 letters (en, pt, yue)")
        }
        var normalised = [language.lowercased()]
        for (index, subtag) in subtags.dropFirst().enumerated() {
            guard (1...8).contains(subtag.count), subtag.allSatisfy({ $0.isASCIILetter || $0.isASCIIDigit }) else {
                throw refuse("each subtag after the language is 1 to 8 letters and digits")
            }
            // The region is the first two-letter subtag right after the language or a four-letter script.
            let isRegion = subtag.count == 2 && (index == 0 || (index == 1 && subtags[1].count == 4))
            normalised.append(isRegion ? subtag.uppercased() : String(subtag))
        }
        return normalised.joined(separator: "-")
    }
}

extension Character {
    fileprivate var isASCIILetter: Bool { isASCII && isLetter }
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
