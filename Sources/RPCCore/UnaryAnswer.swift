/// What a unary handler with a synchronous fast path answers: its response message's bytes at once, or the rest of
/// its work, which may suspend (a read the server's memory could not answer) and runs as a task.
///
/// The transport runs the fast path on the connection's thread as soon as the request is complete; only a `later`
/// answer costs a task, and the connection serves its other calls meanwhile. Bytes rather than a generic message:
/// a generic enum switched on in the router's generic code would look its type metadata up at run time, on every
/// call of the hot path.
public enum UnaryAnswer: Sendable {
    case now([UInt8])
    case later(@Sendable () async throws -> [UInt8])
}
