import BoundedText
import Metrics
public import EntitlementDomain
import RequestTracing
public import RPCCore

/// One log line per RPC: method, tenant, the key's name, canonical user, status code and duration. Never keys or
/// payloads.
public struct CallLog: Sendable {
    /// What a handler learns while it runs and the line reports.
    public struct Fields: Sendable {
        public var tenantID = "-"
        /// The name of the key the call authenticated with (``TenantKey/name``), never the key.
        public var keyName = "-"
        public var appUserID = "-"
        /// What became of the call's user token, when its tenant checks them: `accepted`, or `would_refuse:` and the
        /// reason (mode `observe`); a refused call's error says why. Never the token.
        public var userToken: String?
    }

    let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    func call<Response>(
        _ context: ServerContext, _ body: (inout Fields) async throws -> Response
    ) async throws -> Response {
        var fields = Fields()
        return try await logging(context, &fields, since: started(context), body)
    }

    /// `body`'s answer, and the call's line once it is known.
    private func logging<Response>(
        _ context: ServerContext, _ fields: inout Fields, since start: UInt64,
        _ body: (inout Fields) async throws -> Response
    ) async throws -> Response {
        do {
            let response = try await body(&fields)
            finished(context, fields, error: nil, since: start)
            return response
        } catch {
            finished(context, fields, error: error, since: start)
            throw error
        }
    }

    /// The first half of ``call(_:_:)`` for a handler that cannot be wrapped in a closure (``StatusStreams``):
    /// logs the start at debug level and returns when the call began (``MonotonicClock``), for
    /// ``finished(_:_:error:since:)``.
    func started(_ context: ServerContext) -> UInt64 {
        logStart(context)
        return MonotonicClock.nanoseconds()
    }

    /// The call's line: `error` nil for a call that succeeded. A call the transport ended itself (its deadline, a
    /// shutdown) is logged with the status the client got, not the handler's reaction to being cancelled.
    func finished(_ context: ServerContext, _ fields: Fields, error: (any Error)?, since start: UInt64) {
        write(
            context, fields, failure: error.map { error in
                context.transportStatus.map { RPCError(code: $0.code, message: $0.message) } ?? RPCError(from: error)
            },
            since: start)
    }

    /// ``call(_:_:)`` for a caller that must present a key of `kind` whose scope reaches `scope` (a method that
    /// changes nothing asks for `.read`): the tenant it authenticates as is handed to `body` and named in the log
    /// line with the key's name, which every event the call commits records too (the one preamble every handler
    /// shares).
    func call<Response>(
        _ context: ServerContext, requires kind: APIKey.Kind, scope: APIKey.Scope = .write, in tenants: TenantRegistry,
        _ body: (Tenant, inout Fields) async throws -> Response
    ) async throws -> Response {
        try await callAs(context, requires: kind, scope: scope, in: tenants) { caller, fields in
            try await body(caller.tenant, &fields)
        }
    }

    /// ``call(_:requires:scope:in:_:)`` for a handler that needs the key too, not only its tenant.
    func callAs<Response>(
        _ context: ServerContext, requires kind: APIKey.Kind, scope: APIKey.Scope, in tenants: TenantRegistry,
        _ body: (Caller, inout Fields) async throws -> Response
    ) async throws -> Response {
        try await call(context) { fields in
            let caller = try authenticate(context, requires: kind, scope: scope, in: tenants, &fields)
            return try await ActingKey.$name.withValue(caller.key.name) { try await body(caller, &fields) }
        }
    }

    /// What a handler with a fast path answers (``answer(_:requires:scope:in:_:)``): its response at once, or the
    /// rest of its work, which may suspend and learns the call's fields.
    enum Answer {
        case now([UInt8])
        case later(@Sendable (inout Fields) async throws -> [UInt8])
    }

    /// ``callAs(_:requires:scope:in:_:)`` for a handler with a fast path on the connection's thread (SyncStatus): the
    /// caller, not its tenant, is handed on (a tenant is a struct of many references, copied out of it by a retain
    /// and a release of each), and the line is written once the call is answered, at once or after its wait.
    func answer(
        _ context: ServerContext, requires kind: APIKey.Kind, scope: APIKey.Scope, in tenants: TenantRegistry,
        _ body: (Caller, inout Fields) throws -> Answer
    ) throws -> UnaryAnswer {
        let start = started(context)
        var fields = Fields()
        do {
            switch try body(try authenticate(context, requires: kind, scope: scope, in: tenants, &fields), &fields) {
            case .now(let response):
                finished(context, fields, error: nil, since: start)
                return .now(response)
            case .later(let rest):
                return .later { [fields] in
                    var fields = fields
                    return try await logging(context, &fields, since: start, rest)
                }
            }
        } catch {
            finished(context, fields, error: error, since: start)
            throw error
        }
    }

    /// The caller of `context`, named in `fields`.
    func authenticate(
        _ context: ServerContext, requires kind: APIKey.Kind, scope: APIKey.Scope, in tenants: TenantRegistry,
        _ fields: inout Fields
    ) throws(DomainError) -> Caller {
        let caller = try CallerAuthentication.caller(of: context, requires: kind, scope: scope, in: tenants)
        fields.tenantID = caller.tenant.id
        fields.keyName = caller.key.name
        return caller
    }

    /// One line per committed change to a customer, whatever caused it (a call, or time for expiries).
    public func change(tenantID: String, _ update: StatusUpdate) {
        let kind =
            switch update.kind {
            case .snapshot: "SNAPSHOT"
            case .changed(.statusChanged): "STATUS_CHANGED"
            case .changed(.customerInfoChanged): "CUSTOMER_INFO_CHANGED"
            }
        logger.info(
            "change",
            [
                "tenant": tenantID, "user": update.state.appUserID, "version": String(update.state.version),
                "kind": kind, "entitlements": update.state.status.activeIDs.sorted().joined(separator: ","),
                "reason": update.reason,
            ])
    }

    /// A failed call's line also says why: the status message the client got (which never holds a key or a
    /// payload), bounded.
    private func write(_ context: ServerContext, _ fields: Fields, failure: RPCError?, since start: UInt64) {
        logger.info(
            "rpc",
            fields: CallLine(
                context: context, fields: fields, code: (failure?.code ?? .ok).description,
                microseconds: MonotonicClock.nanoseconds(since: start) / 1000,
                error: failure?.message.truncated(toUTF8Bytes: 300)))
    }

    /// The fields of a call's line, listed in place (``LogFieldList``): this line is written for every call.
    private struct CallLine: LogFieldList {
        let context: ServerContext
        let fields: Fields
        let code: String
        let microseconds: UInt64
        let error: String?

        func write(to line: inout LogFields) {
            line.add("method", context.method.path)
            line.add("tenant", fields.tenantID)
            line.add("key", fields.keyName)
            line.add("user", fields.appUserID)
            if let userToken = fields.userToken { line.add("user_token", userToken) }
            line.add("code", code)
            line.add("duration_us", microseconds)
            line.add("peer", context.peer)
            if let error { line.add("error", error) }
        }
    }

    /// With `log_level = "debug"`: a line as each call starts, naming its metadata keys (never their values, which
    /// hold the API key) and its deadline, so a call that hangs shows up before it ends.
    private func logStart(_ context: ServerContext) {
        guard logger.minimumLevel == .debug else { return }
        let deadline = context.deadline.map { ContinuousClock.now.duration(to: $0) }
        logger.debug(
            "rpc started",
            [
                "method": context.method.path, "peer": context.peer, "protocol": context.rpcProtocol.name,
                "metadata_keys": context.metadata.entries.map(\.key).joined(separator: ","),
                "deadline_ms": deadline.map { String($0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000) } ?? "none",
            ])
    }
}
