// MARK: Rules (errors are relative to the checked value; the tenants file reader and `validated` share them)

extension BrowserSettings {
    /// These settings checked as a configured `web` would be. Error paths are relative to `web`.
    package func validated() throws(TenantRuleError) -> BrowserSettings {
        try TenantRuleError.at(".allowed_origins") { () throws(TenantRuleError) in
            try Self.checkAllowedOriginCount(allowedOrigins.count)
            for (index, origin) in allowedOrigins.enumerated() {
                try TenantRuleError.at("[\(index)]") { () throws(TenantRuleError) in
                    try Self.checkOrigin(origin, listedAfter: Array(allowedOrigins[..<index]))
                }
            }
        }
        return self
    }

    package static func checkAllowedOriginCount(_ count: Int) throws(TenantRuleError) {
        guard allowedOriginCountRange.contains(count) else {
            throw TenantRuleError(
                .invalidValue,
                "expected \(allowedOriginCountRange.lowerBound) to \(allowedOriginCountRange.upperBound) origins, found "
                    + "\(count); list the origins of the pages that call this API (\"https://app.example.com\"), or "
                    + "leave \"web\" out")
        }
    }

    /// An origin as a browser sends it in `Origin`: `http` or `https`, `://`, a lower-case host (a name, an IPv4
    /// address or a bracketed IPv6 address), an optional port that is not the scheme's default, nothing after it.
    /// Anything else would never equal a browser's header, so it is refused rather than silently never matching.
    package static func checkOrigin(_ origin: String, listedAfter previous: [String]) throws(TenantRuleError) {
        func refuse(_ why: String) -> TenantRuleError {
            TenantRuleError(.invalidValue, "origin \"\(origin)\" \(why)")
        }
        if origin.contains("*") {
            throw refuse("has a wildcard; list each origin (credentials are allowed, and CORS forbids \"*\" with them)")
        }
        if let scalar = origin.unicodeScalars.first(where: { !$0.isASCII || $0.value <= 0x20 || $0.value == 0x7F }) {
            throw refuse("contains \(AppUserID.codePoint(scalar)); write an internationalised host in its xn-- form")
        }
        let scheme: String
        if origin.hasPrefix("https://") {
            scheme = "https"
        } else if origin.hasPrefix("http://") {
            scheme = "http"
        } else {
            throw refuse("does not start with http:// or https:// (in lower case)")
        }
        let authority = origin.dropFirst(scheme.count + 3)
        if authority.contains(where: { "/?#".contains($0) }) {
            throw refuse("has a path, query or trailing slash; an origin is scheme://host[:port] only")
        }
        if authority.contains("@") { throw refuse("has user info; an origin is scheme://host[:port] only") }
        var host = authority
        var port: Substring?
        if host.first == "[" {
            guard let close = host.firstIndex(of: "]") else { throw refuse("has an unclosed [ in its host") }
            let after = host[host.index(after: close)...]
            host = host[...close]
            if !after.isEmpty {
                guard after.first == ":" else { throw refuse("has characters after its IPv6 address") }
                port = after.dropFirst()
            }
            guard host.dropFirst().dropLast().allSatisfy({ "0123456789abcdef:.".contains($0) }) else {
                throw refuse("has an IPv6 address that is not lower-case hex digits, : and .")
            }
        } else if let colon = host.firstIndex(of: ":") {
            port = host[host.index(after: colon)...]
            host = host[..<colon]
        }
        if host.isEmpty || host == "[]" { throw refuse("has no host") }
        if host.first != "[" {
            if host.contains(where: { $0.isUppercase }) {
                throw refuse("has upper-case letters in its host; browsers send it in lower case: \"\(origin.lowercased())\"")
            }
            guard host.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "." || $0 == "-" }) else {
                throw refuse("has a host that is not letters, digits, . and -")
            }
        }
        if let port {
            guard !port.isEmpty, port.count <= 5, port.allSatisfy({ ("0"..."9").contains($0) }), port.first != "0",
                let number = Int(port), number <= 65_535
            else { throw refuse("has a port that is not a number from 1 to 65535") }
            if (scheme == "https" && number == 443) || (scheme == "http" && number == 80) {
                throw refuse("names the default port \(number); browsers leave it out: \"\(scheme)://\(host)\"")
            }
        }
        try ListRule.checkNotListed(origin, written: origin, in: previous)
    }
}
