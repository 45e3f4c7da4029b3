/// The hops a forwarding header lists, oldest (the original client, as far as anyone says) first and the proxy
/// nearest to us last; nil for a hop whose address cannot be read (`unknown`, an obfuscated name, anything else).
///
/// Only the last ``kept`` hops are returned: a trusted proxy appends the address it saw on the right, so whatever a
/// client wrote itself lies to the left of the hops that matter, and a header of any length costs bounded memory.
enum ForwardedHops {
    static let kept = 64

    /// `X-Forwarded-For: 203.0.113.7, 10.0.0.2` over every field line in order (RFC 9110 list syntax: empty elements
    /// are ignored). Entries may carry a port or brackets (`[2001:db8::1]:4711`), as some proxies write them.
    static func xForwardedFor(_ values: [String]) -> [IPAddress?] {
        var hops = Hops()
        for value in values {
            for element in value.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
                let trimmed = trimmingSpaces(element)
                if !trimmed.isEmpty { hops.append(node(trimmed)) }
            }
        }
        return hops.last
    }

    /// RFC 7239 `Forwarded: for=192.0.2.60;proto=https, for="[2001:db8:cafe::17]:4711"` over every field line in
    /// order: each element's `for` parameter (names in any case; a value a token or a quoted string); an element
    /// without one is an unreadable hop.
    static func forwarded(_ values: [String]) -> [IPAddress?] {
        var hops = Hops()
        for value in values {
            var scanner = ForwardedScanner(bytes: Array(value.utf8))
            while let element = scanner.nextElement() {
                if let forValue = element { hops.append(node(forValue[...])) } else { hops.append(nil) }
            }
        }
        return hops.last
    }

    /// RFC 7239 §6's node: an IPv4 address, a bracketed IPv6 address, either with an optional `:port`; a bare IPv6
    /// address is taken too. nil for `unknown`, an obfuscated identifier or anything else.
    static func node(_ text: ArraySlice<UInt8>) -> IPAddress? {
        // Longer than any address with a port: not one (and never copied whole).
        guard text.count <= IPAddress.maxTextBytes + 8 else { return nil }
        let string = String(decoding: text, as: UTF8.self)
        if let address = IPAddress(string) { return address }
        if string.hasPrefix("[") {
            guard let close = string.firstIndex(of: "]") else { return nil }
            let rest = string[string.index(after: close)...]
            guard rest.isEmpty || (rest.first == ":" && isPort(rest.dropFirst())) else { return nil }
            let inner = string[string.index(after: string.startIndex)..<close]
            return inner.contains(":") ? IPAddress(inner) : nil
        }
        let parts = string.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, isPort(parts[1]), let address = IPAddress(parts[0]), address.isIPv4 else { return nil }
        return address
    }

    private static func isPort(_ text: Substring) -> Bool {
        text.utf8.count <= 5 && text.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
            && Int(text).map { $0 <= 65535 } == true
    }

    private static func trimmingSpaces(_ bytes: Substring.UTF8View) -> ArraySlice<UInt8> {
        let isSpace: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) })
        else { return [] }
        return ArraySlice(bytes[first...last])
    }

    /// The last ``kept`` hops appended, in order, in bounded memory.
    private struct Hops {
        private var hops: [IPAddress?] = []

        mutating func append(_ hop: IPAddress?) {
            // Dropping a block at a time keeps appending amortized O(1).
            if hops.count == 2 * ForwardedHops.kept { hops.removeFirst(ForwardedHops.kept) }
            hops.append(hop)
        }

        var last: [IPAddress?] { Array(hops.suffix(ForwardedHops.kept)) }
    }
}

/// Reads a `Forwarded` field value element by element (commas outside quoted strings end elements, semicolons
/// end pairs), yielding each element's `for` value unquoted, or nil when it has none.
private struct ForwardedScanner {
    let bytes: [UInt8]
    var position = 0

    /// nil at the end; `.some(nil)` for an element without `for`. Empty elements (`a, , b`) are skipped.
    mutating func nextElement() -> [UInt8]?? {
        while position < bytes.count {
            var forValue: [UInt8]?
            var sawPair = false
            while position < bytes.count {
                skipSpaces()
                let name = readWhile { $0 != UInt8(ascii: "=") && $0 != UInt8(ascii: ";") && $0 != UInt8(ascii: ",") }
                var value: [UInt8] = []
                if position < bytes.count, bytes[position] == UInt8(ascii: "=") {
                    position += 1
                    value = readValue()
                }
                let trimmedName = name.filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }
                if !trimmedName.isEmpty {
                    sawPair = true
                    if forValue == nil, String(decoding: trimmedName, as: UTF8.self).lowercased() == "for" {
                        forValue = value
                    }
                }
                skipSpaces()
                guard position < bytes.count else { break }
                let separator = bytes[position]
                position += 1
                if separator == UInt8(ascii: ",") { break }
                // A semicolon, or a stray byte after a value: the next pair.
            }
            if sawPair { return .some(forValue) }
        }
        return nil
    }

    /// A token, or a quoted string with its quotes and backslash escapes removed; trailing spaces of a token dropped.
    private mutating func readValue() -> [UInt8] {
        skipSpaces()
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
            let token = readWhile { $0 != UInt8(ascii: ";") && $0 != UInt8(ascii: ",") }
            return Array(token.reversed().drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }.reversed())
        }
        position += 1
        var value: [UInt8] = []
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            if byte == UInt8(ascii: "\"") { break }
            if byte == UInt8(ascii: "\\"), position < bytes.count {
                value.append(bytes[position])
                position += 1
            } else {
                value.append(byte)
            }
        }
        return value
    }

    private mutating func skipSpaces() {
        while position < bytes.count, bytes[position] == UInt8(ascii: " ") || bytes[position] == UInt8(ascii: "\t") {
            position += 1
        }
    }

    private mutating func readWhile(_ predicate: (UInt8) -> Bool) -> ArraySlice<UInt8> {
        let start = position
        while position < bytes.count, predicate(bytes[position]) { position += 1 }
        return bytes[start..<position]
    }
}
