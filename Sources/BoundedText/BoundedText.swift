/// Bounds on text that ends up in error messages, logs and status trailers, where unbounded input must not reach.
extension StringProtocol {
    /// At most `maxBytes` bytes of this text's UTF-8, cut at a character boundary and ending in "…" when cut
    /// (the ellipsis is counted in the bound).
    public func truncated(toUTF8Bytes maxBytes: Int) -> String {
        guard utf8.count > maxBytes else { return String(self) }
        let ellipsis = "…"
        var kept = 0
        var end = startIndex
        for character in self {
            let size = character.utf8.count
            guard kept + size + ellipsis.utf8.count <= maxBytes else { break }
            kept += size
            end = index(after: end)
        }
        return String(self[startIndex..<end]) + ellipsis
    }

    /// This text in single quotes for an error message, its control characters escaped (``ControlCharacters``) and
    /// cut to ``maxQuotedInputBytes``: a message may name what the caller sent, but a 100 KB ID must not come back
    /// as a 100 KB status message, nor a decoded `%00` or escape sequence as itself.
    public var quotedForMessage: String {
        "'" + ControlCharacters.escaped(self).truncated(toUTF8Bytes: maxQuotedInputBytes) + "'"
    }
}

/// How much of a caller's input an error message quotes.
public let maxQuotedInputBytes = 256
