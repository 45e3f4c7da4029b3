import HTTP1

/// Which browser origins may call gRPC-Web methods, decided outside the transport (entitlementd: the union of the
/// tenants' `web.allowed_origins`; each call's tenant is checked again after authentication).
public protocol GRPCWebCORSPolicy: Sendable {
    /// Whether a page served from `origin` (`scheme://host[:port]`, as the browser sends it) may call at all.
    func allowsOrigin(_ origin: String) -> Bool
    /// How long a browser may cache a preflight's answer (`Access-Control-Max-Age`).
    var maxAgeSeconds: Int { get }
}

/// The CORS headers the transport adds for gRPC-Web and Connect: the preflight answer and the headers of actual
/// responses.
///
/// The origin is echoed, never `*`: credentials (`authorization`) are allowed, and `*` is not valid with them.
enum GRPCWebCORS {
    /// What a page may send: the gRPC-Web and Connect clients' own headers, the deadline, the API key and the user
    /// token.
    static let allowedHeaders =
        "content-type, x-grpc-web, x-user-agent, grpc-timeout, authorization, connect-protocol-version, "
        + "connect-timeout-ms, connect-content-encoding, connect-accept-encoding, x-request-id, entitlements-user-token"
    /// GET for Connect's side-effect-free calls.
    static let allowedMethods = "GET, POST, OPTIONS"
    /// Without this a Trailers-Only error is invisible to the page's script (grpc/grpc-web#962).
    static let exposedHeaders = "grpc-status, grpc-message, grpc-status-details-bin"

    /// A preflight: an `OPTIONS` naming the method it asks for.
    static func isPreflight(method: String, origin: String?, requestMethod: String?) -> Bool {
        method == "OPTIONS" && origin != nil && requestMethod != nil
    }

    /// The answer to a preflight from `origin`: 204 with the allowed methods and headers, or 403 without any CORS
    /// header when no tenant lists the origin.
    static func preflightResponse(origin: String, policy: (any GRPCWebCORSPolicy)?) -> HTTPResponse {
        guard let policy, policy.allowsOrigin(origin) else {
            return .text(403, "Origin \(origin) may not call this server.\n")
        }
        var headers = HTTPHeaders(originHeaders(origin))
        headers.add(name: "access-control-allow-methods", value: allowedMethods)
        headers.add(name: "access-control-allow-headers", value: allowedHeaders)
        headers.add(name: "access-control-max-age", value: String(policy.maxAgeSeconds))
        return HTTPResponse(status: 204, headers: headers)
    }

    /// The headers of an actual response to `origin`: none when it is absent (not a browser) or not allowed.
    static func responseHeaders(origin: String?, policy: (any GRPCWebCORSPolicy)?) -> [(String, String)] {
        guard let origin, let policy, policy.allowsOrigin(origin) else { return [] }
        return originHeaders(origin) + [("access-control-expose-headers", exposedHeaders)]
    }

    private static func originHeaders(_ origin: String) -> [(String, String)] {
        [("access-control-allow-origin", origin), ("access-control-allow-credentials", "true"), ("vary", "Origin")]
    }
}
