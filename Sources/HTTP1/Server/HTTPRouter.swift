import RequestTracing
public import Metrics

/// Maps method + path to a handler. Built once with a `Builder`, then immutable (so lookups take no lock).
///
/// Patterns are `/`-separated segments; a segment that is exactly `{name}` matches one non-empty
/// path segment and captures it, percent-decoded, into `HTTPRequest.pathParameters`. Other segments
/// match literally (after percent-decoding the request path). A trailing slash is significant.
/// When several patterns match a path, the one with a literal where the other has a parameter (at the
/// first position where they differ) is preferred. `HEAD` is served by the `GET` handler unless a `HEAD`
/// handler is registered (the HTTP/1.1 serializer then omits the body).
///
/// ```swift
/// let router = HTTPRouter { routes in
///     routes.register("GET", "/healthz") { _ in .text(200, "ok\n") }
///     routes.register("POST", "/v1/apple/notifications/{tenant_id}") { request in
///         .text(202, request.pathParameters["tenant_id"]!)
///     }
/// }
/// ```
public final class HTTPRouter: Sendable {
    public typealias Handler = @Sendable (HTTPRequest) async -> HTTPResponse

    public enum RouteResult: Sendable {
        /// Call the handler with `pathParameters` set on the request.
        case matched(Handler, pathParameters: [String: String], pattern: String)
        /// Some pattern matches the path, but none for this method: answer 405 with `Allow: <allowed>`.
        case methodNotAllowed(allowed: [String])
        /// No pattern matches the path: answer 404.
        case notFound
    }

    /// Collects routes; registering an invalid pattern or the same method + pattern twice is a programmer error and traps.
    public struct Builder: Sendable {
        fileprivate var entries: [Entry] = []

        public init() {}

        public mutating func register(_ method: String, _ pattern: String, handler: @escaping Handler) {
            precondition(
                !method.isEmpty && method.utf8.allSatisfy(HTTP1Grammar.isTokenChar),
                "HTTPRouter: invalid method \(method)"
            )
            let segments = HTTPRouter.compile(pattern)
            let shape = segments.map { segment -> String in
                if case .literal(let text) = segment { return "/" + text }
                return "/{}"
            }.joined()
            if let index = entries.firstIndex(where: { $0.shape == shape }) {
                precondition(
                    entries[index].segments == segments,
                    "HTTPRouter: \(pattern) conflicts with \(entries[index].pattern) (same shape, different parameter names)"
                )
                precondition(
                    entries[index].handlers[method] == nil,
                    "HTTPRouter: \(method) \(pattern) registered twice"
                )
                entries[index].handlers[method] = handler
            } else {
                entries.append(Entry(pattern: pattern, shape: shape, segments: segments, handlers: [method: handler]))
            }
        }
    }

    fileprivate enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    fileprivate struct Entry: Sendable {
        let pattern: String
        /// The pattern with parameter names erased, to detect duplicates.
        let shape: String
        let segments: [Segment]
        var handlers: [String: Handler]
    }

    private let entries: [Entry]
    /// Requests answered, by route pattern (`other` for paths no pattern matches) and status.
    public let requests: LabeledCounter
    public let durations: LabeledHistogram

    public init(_ builder: Builder) {
        entries = builder.entries
        let patterns = builder.entries.map(\.pattern)
        requests = LabeledCounter(
            "entitlementd_http_requests_total", help: "Plain HTTP requests answered, by route pattern and status.",
            labels: ["route", "code"])
        durations = LabeledHistogram(
            "entitlementd_http_request_duration_seconds", help: "Time to answer a plain HTTP request, by route pattern.",
            labels: ["route"], buckets: .standard, initial: patterns.map { [$0] })
    }

    public convenience init(_ configure: (inout Builder) throws -> Void) rethrows {
        var builder = Builder()
        try configure(&builder)
        self.init(builder)
    }

    /// Every registered method and pattern, in registration order of the patterns.
    public var routes: [(method: String, pattern: String)] {
        entries.flatMap { entry in entry.handlers.keys.sorted().map { (method: $0, pattern: entry.pattern) } }
    }

    /// Whether any pattern matches this path, whatever the method. A `?query` suffix is ignored.
    /// The HTTP/2 side uses this to tell plain-HTTP routes from gRPC calls.
    public func matches(path: String) -> Bool {
        // Every Connect and gRPC-Web call asks this first: a plain ASCII path is matched in its own bytes, with no
        // segment array, decoding or parameter dictionary (12,000 instructions of a 70,000-instruction call).
        var text = path
        let plain: Bool? = text.withUTF8 { whole in
            let bytes = UnsafeBufferPointer(rebasing: whole[..<(whole.firstIndex(of: UInt8(ascii: "?")) ?? whole.count)])
            var segments = 0
            for byte in bytes {
                guard byte < 0x80, byte != UInt8(ascii: "%") else { return nil }
                if byte == UInt8(ascii: "/") { segments += 1 }
            }
            return bytes.first == UInt8(ascii: "/")
                && entries.contains { $0.segments.count == segments && HTTPRouter.matches($0.segments, ascii: bytes) }
        }
        if let plain { return plain }
        var path = Substring(path)
        if let mark = path.utf8.firstIndex(of: UInt8(ascii: "?")) { path = path[..<mark] }
        guard let segments = HTTPRouter.requestSegments(path) else { return false }
        return entries.contains { HTTPRouter.match($0.segments, segments) != nil }
    }

    public func route(_ request: HTTPRequest) -> RouteResult {
        route(method: request.method, path: request.path)
    }

    public func route(method: String, path: String) -> RouteResult {
        guard let segments = HTTPRouter.requestSegments(Substring(path)) else { return .notFound }
        var candidates: [(entry: Entry, parameters: [String: String])] = []
        for entry in entries {
            if let parameters = HTTPRouter.match(entry.segments, segments) {
                candidates.append((entry, parameters))
            }
        }
        guard !candidates.isEmpty else { return .notFound }
        if candidates.count > 1 {
            candidates.sort { HTTPRouter.isMoreSpecific($0.entry.segments, than: $1.entry.segments) }
        }
        for candidate in candidates {
            if let handler = candidate.entry.handlers[method] {
                return .matched(handler, pathParameters: candidate.parameters, pattern: candidate.entry.pattern)
            }
        }
        if method == "HEAD" {
            for candidate in candidates {
                if let handler = candidate.entry.handlers["GET"] {
                    return .matched(handler, pathParameters: candidate.parameters, pattern: candidate.entry.pattern)
                }
            }
        }
        var allowed = Set<String>()
        for candidate in candidates {
            allowed.formUnion(candidate.entry.handlers.keys)
        }
        if allowed.contains("GET") { allowed.insert("HEAD") }
        return .methodNotAllowed(allowed: allowed.sorted())
    }

    /// Routes and runs the handler under the request's ``RequestID`` (echoed in `x-request-id`); 404 and 405 (with
    /// `Allow`) are answered here as text.
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        let started = ContinuousClock.now
        let requestID = RequestID.accept(request.headers[RequestID.headerName])
        var (pattern, response) = await RequestID.$taskValue.withValue(requestID) { await answer(request) }
        requests.increment(pattern, String(response.status))
        durations.observe(started.duration(to: .now), pattern)
        response.headers.add(name: RequestID.headerName, value: requestID)
        return response
    }

    private func answer(_ request: HTTPRequest) async -> (pattern: String, HTTPResponse) {
        switch route(request) {
        case .matched(let handler, let parameters, let pattern):
            var request = request
            request.pathParameters = parameters
            return (pattern, await handler(request))
        case .methodNotAllowed(let allowed):
            var response = HTTPResponse.text(405, "method \(request.method) not allowed\n")
            response.headers.add(name: "allow", value: allowed.joined(separator: ", "))
            return ("other", response)
        case .notFound:
            return ("other", .text(404, "not found\n"))
        }
    }

    // MARK: - Matching

    private static func compile(_ pattern: String) -> [Segment] {
        precondition(pattern.utf8.first == UInt8(ascii: "/"), "HTTPRouter: pattern \(pattern) must start with /")
        precondition(!pattern.contains("?"), "HTTPRouter: pattern \(pattern) must not contain a query")
        var names = Set<String>()
        return pattern.utf8.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map { raw in
            let text = String(Substring(raw))
            if raw.first == UInt8(ascii: "{") {
                let name = raw.dropFirst().dropLast()
                precondition(
                    raw.last == UInt8(ascii: "}") && !name.isEmpty
                        && name.allSatisfy { byte in
                            byte == UInt8(ascii: "_") || (byte | 0x20) &- 0x61 < 26 || byte &- 0x30 < 10
                        },
                    "HTTPRouter: bad parameter segment \(text) in \(pattern)"
                )
                let nameText = String(Substring(name))
                precondition(names.insert(nameText).inserted, "HTTPRouter: parameter \(nameText) repeated in \(pattern)")
                return .parameter(nameText)
            }
            precondition(!text.contains("{") && !text.contains("}"), "HTTPRouter: bad segment \(text) in \(pattern)")
            return .literal(text)
        }
    }

    /// Percent-decoded segments of a request path, or nil when the path is not absolute or is badly encoded.
    private static func requestSegments(_ path: Substring) -> [String]? {
        guard path.utf8.first == UInt8(ascii: "/") else { return nil }
        var segments: [String] = []
        for raw in path.utf8.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            guard let decoded = HTTPPercentDecoding.decode(raw) else { return nil }
            segments.append(decoded)
        }
        return segments
    }

    private static func match(_ pattern: [Segment], _ segments: [String]) -> [String: String]? {
        guard pattern.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (expected, actual) in zip(pattern, segments) {
            switch expected {
            case .literal(let literal):
                guard literal == actual else { return nil }
            case .parameter(let name):
                guard !actual.isEmpty else { return nil }
                parameters[name] = actual
            }
        }
        return parameters
    }

    /// ``match(_:_:)`` for a path of ASCII bytes without percent escapes (`/` first), which decode to themselves.
    private static func matches(_ pattern: [Segment], ascii path: UnsafeBufferPointer<UInt8>) -> Bool {
        var start = 1
        for (position, expected) in pattern.enumerated() {
            var end = start
            while end < path.count, path[end] != UInt8(ascii: "/") { end += 1 }
            switch expected {
            case .literal(let literal):
                guard literal.utf8.count == end - start,
                    literal.utf8.elementsEqual(UnsafeBufferPointer(rebasing: path[start..<end]))
                else { return false }
            case .parameter:
                guard end > start else { return false }
            }
            // The pattern's segments and the path's end together.
            guard (position == pattern.count - 1) == (end == path.count) else { return false }
            start = end + 1
        }
        return true
    }

    private static func isMoreSpecific(_ lhs: [Segment], than rhs: [Segment]) -> Bool {
        for (left, right) in zip(lhs, rhs) {
            switch (left, right) {
            case (.literal, .parameter): return true
            case (.parameter, .literal): return false
            default: continue
            }
        }
        return false
    }
}
