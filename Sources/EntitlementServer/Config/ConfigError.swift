import BoundedText

/// A configuration file that cannot be used, located as precisely as possible.
///
/// The description reads `FILE:LINE: [section] key: what is wrong`, e.g.
/// `Config/demo.toml:12: [limits] max_concurrent_streams: expected an integer between 1 and 10000, got "abc"`.
/// Parts that do not apply (no line for an unreadable file, no key for an unknown section) are left out.
public struct ConfigError: Error, CustomStringConvertible, Sendable, Equatable {
    /// A stable, machine-readable kind; tests and tooling match on it, never on the message.
    public enum Code: String, Sendable, CaseIterable {
        /// The configuration file itself could not be read or is not UTF-8.
        case unreadableFile = "unreadable_file"
        /// A line that is not a section header, a `key = value` pair, a comment or blank.
        case syntax
        /// A string that is not closed on its line.
        case unterminatedString = "unterminated_string"
        /// A backslash escape other than `\"`, `\\`, `\n`, `\t` and `\uXXXX`.
        case invalidEscape = "invalid_escape"
        /// TOML that is valid but outside the supported subset (floats, arrays, multi-line strings, dotted keys, ...).
        case unsupportedSyntax = "unsupported_syntax"
        case unknownSection = "unknown_section"
        case duplicateSection = "duplicate_section"
        case unknownKey = "unknown_key"
        case duplicateKey = "duplicate_key"
        /// A `key = value` before the first `[section]` header.
        case keyOutsideSection = "key_outside_section"
        case missingKey = "missing_key"
        /// The value has the wrong type (a string where an integer belongs, ...).
        case typeMismatch = "type_mismatch"
        /// An integer outside the bounds the key allows.
        case outOfRange = "out_of_range"
        /// The value has the right type but is not acceptable (an unknown log level, an empty path, ...).
        case invalidValue = "invalid_value"
        case invalidListenAddress = "invalid_listen_address"
        /// Only one of `[tls] certificate` and `[tls] private_key` is set.
        case tlsIncomplete = "tls_incomplete"
        /// A file the configuration names does not exist.
        case fileNotFound = "file_not_found"
        /// A file the configuration names exists but cannot be read (or is not a regular file).
        case fileNotReadable = "file_not_readable"
        /// The directory for the database does not exist and cannot be created.
        case storageDirectory = "storage_directory"
    }

    public var code: Code
    /// The configuration file as the user named it.
    public var file: String
    /// 1-based line number, when the problem is on a line.
    public var line: Int?
    public var section: String?
    public var key: String?
    /// What is wrong, without the location prefix.
    public var message: String

    public init(code: Code, file: String, line: Int? = nil, section: String? = nil, key: String? = nil, message: String) {
        self.code = code
        self.file = file
        self.line = line
        self.section = section
        self.key = key
        self.message = message
    }

    public var description: String {
        var text = file
        if let line { text += ":\(line)" }
        text += ": "
        switch (section, key) {
        case let (section?, key?): text += "[\(section)] \(key): "
        case let (section?, nil): text += "[\(section)]: "
        case let (nil, key?): text += "\(key): "
        case (nil, nil): break
        }
        return text + message
    }
}

/// Every problem of a configuration file, in file order (never empty): what loading it throws, so that one run
/// reports them all. The description is one ``ConfigError`` per line.
public struct ConfigErrors: Error, CustomStringConvertible, Sendable, Equatable {
    public var errors: [ConfigError]

    public init(_ errors: [ConfigError]) { self.errors = errors }

    public var description: String { errors.map(\.description).joined(separator: "\n") }
}

// MARK: - Factories

extension ConfigError {
    public static func unreadableFile(_ file: String, reason: String) -> ConfigError {
        ConfigError(code: .unreadableFile, file: file, message: "cannot read the configuration file: \(reason)")
    }

    public static func syntax(_ file: String, line: Int, section: String? = nil, key: String? = nil, _ message: String)
        -> ConfigError
    {
        ConfigError(code: .syntax, file: file, line: line, section: section, key: key, message: message)
    }

    public static func unterminatedString(
        _ file: String, line: Int, section: String?, key: String?, quote: Character = "\""
    ) -> ConfigError {
        ConfigError(
            code: .unterminatedString, file: file, line: line, section: section, key: key,
            message: "unterminated string: a closing \(quote) is missing on this line"
        )
    }

    public static func invalidEscape(_ file: String, line: Int, section: String?, key: String?, _ escape: String)
        -> ConfigError
    {
        ConfigError(
            code: .invalidEscape, file: file, line: line, section: section, key: key,
            message: "invalid escape \(escape) in string; supported escapes are \\\", \\\\, \\n, \\t and \\uXXXX"
        )
    }

    public static func unsupported(_ file: String, line: Int, section: String? = nil, key: String? = nil, _ what: String)
        -> ConfigError
    {
        ConfigError(
            code: .unsupportedSyntax, file: file, line: line, section: section, key: key,
            message: "\(what) not supported; values are \"strings\" or 'literal strings', integers, true or false"
        )
    }

    public static func unknownSection(_ file: String, line: Int, section: String, known: [String]) -> ConfigError {
        var message = "unknown section"
        if let guess = closestMatch(to: section, in: known) { message += " (did you mean [\(guess)]?)" }
        message += "; known sections are " + known.map { "[\($0)]" }.joined(separator: ", ")
        return ConfigError(code: .unknownSection, file: file, line: line, section: section, message: message)
    }

    public static func duplicateSection(_ file: String, line: Int, section: String, firstLine: Int) -> ConfigError {
        ConfigError(
            code: .duplicateSection, file: file, line: line, section: section,
            message: "section appears twice (first on line \(firstLine)); put all of its keys under one header"
        )
    }

    public static func unknownKey(_ file: String, line: Int, section: String, key: String, known: [String])
        -> ConfigError
    {
        var message = "unknown key"
        if let guess = closestMatch(to: key, in: known) { message += " (did you mean \(guess)?)" }
        message += "; known keys in [\(section)] are " + known.joined(separator: ", ")
        return ConfigError(code: .unknownKey, file: file, line: line, section: section, key: key, message: message)
    }

    /// A key earlier versions read that is set elsewhere now (`movedTo` says where): refused rather than ignored, so
    /// that the setting is not silently lost.
    public static func unknownKey(_ file: String, line: Int, section: String, key: String, movedTo: String) -> ConfigError {
        ConfigError(
            code: .unknownKey, file: file, line: line, section: section, key: key,
            message: "no longer a server setting: \(movedTo)")
    }

    public static func duplicateKey(_ file: String, line: Int, section: String, key: String, firstLine: Int)
        -> ConfigError
    {
        ConfigError(
            code: .duplicateKey, file: file, line: line, section: section, key: key,
            message: "key is set twice (first on line \(firstLine))"
        )
    }

    public static func keyOutsideSection(_ file: String, line: Int, key: String) -> ConfigError {
        ConfigError(
            code: .keyOutsideSection, file: file, line: line, key: key,
            message: "key appears before any [section] header; every key belongs to a section"
        )
    }

    public static func missingKey(_ file: String, section: String, key: String, _ hint: String) -> ConfigError {
        ConfigError(
            code: .missingKey, file: file, section: section, key: key, message: "required key is missing; \(hint)"
        )
    }

    public static func typeMismatch(
        _ file: String, line: Int, section: String, key: String, expected: String, got: String
    ) -> ConfigError {
        ConfigError(
            code: .typeMismatch, file: file, line: line, section: section, key: key,
            message: "expected \(expected), got \(got)"
        )
    }

    public static func outOfRange(_ file: String, line: Int, section: String, key: String, expected: String, got: String)
        -> ConfigError
    {
        ConfigError(
            code: .outOfRange, file: file, line: line, section: section, key: key,
            message: "expected \(expected), got \(got)"
        )
    }

    public static func invalidValue(_ file: String, line: Int, section: String, key: String, _ message: String)
        -> ConfigError
    {
        ConfigError(code: .invalidValue, file: file, line: line, section: section, key: key, message: message)
    }

    public static func invalidListenAddress(_ file: String, line: Int, section: String, key: String, _ message: String)
        -> ConfigError
    {
        ConfigError(code: .invalidListenAddress, file: file, line: line, section: section, key: key, message: message)
    }

    public static func tlsIncomplete(_ file: String, line: Int, present: String, missing: String) -> ConfigError {
        ConfigError(
            code: .tlsIncomplete, file: file, line: line, section: "tls", key: present,
            message: "\(missing) must be set too: TLS needs both certificate and private_key, or neither for plaintext h2c"
        )
    }

    public static func fileNotFound(_ file: String, line: Int, section: String, key: String, path: String)
        -> ConfigError
    {
        ConfigError(
            code: .fileNotFound, file: file, line: line, section: section, key: key,
            message: "file \"\(path)\" does not exist (relative paths are resolved against the configuration file's directory)"
        )
    }

    public static func fileNotReadable(
        _ file: String, line: Int, section: String, key: String, path: String, reason: String
    ) -> ConfigError {
        ConfigError(
            code: .fileNotReadable, file: file, line: line, section: section, key: key,
            message: "file \"\(path)\" cannot be read: \(reason)"
        )
    }

    public static func storageDirectory(
        _ file: String, line: Int?, section: String, key: String, directory: String, reason: String
    ) -> ConfigError {
        ConfigError(
            code: .storageDirectory, file: file, line: line, section: section, key: key,
            message: "cannot use directory \"\(directory)\" for the database: \(reason)"
        )
    }
}
