/// The `Origin` of a browser call from another site's page, or nil for a call from one of this server's own pages
/// (the admin console), whose origin is the request's own scheme and authority, and for calls without one.
///
/// Only a browser sends `Origin`, and a page cannot set it, so a same-origin call comes from a page this server
/// served; cross-origin calls are checked against the tenant's `web.allowed_origins` above the transport.
enum CrossOrigin {
    static func of(origin: String?, authority: String?, tls: Bool) -> String? {
        guard let origin else { return nil }
        guard let authority, !authority.isEmpty else { return origin }
        let own = (tls ? "https://" : "http://") + authority
        return sameASCIIIgnoringCase(origin, own) ? nil : origin
    }

    /// Scheme and host compare without case (RFC 6454 §4 lowercases them); bytes otherwise.
    private static func sameASCIIIgnoringCase(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && zip(a.utf8, b.utf8).allSatisfy { x, y in
            x == y || (x | 0x20 == y | 0x20 && (x | 0x20) >= UInt8(ascii: "a") && (x | 0x20) <= UInt8(ascii: "z"))
        }
    }
}
